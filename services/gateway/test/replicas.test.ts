import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import { endpointOf, waitFor } from '@switchyard/shared/testing';
import { quotaKey } from '../src/metering/quota';
import { periodOf } from '../src/metering/period';
import { orgWithKey } from './accounts-helpers';
import { memoryStates, redisStates, type SharedStates } from './replica-states';
import { startHarness, type Harness } from './harness';

const PROMPT = 'Concurrent replicas share one quota';
const MAX_LENGTH = 20;
const ESTIMATE = countTokens(PROMPT) + MAX_LENGTH;
/** Each call really uses 3 tokens more than its estimate, so settling can push past the quota. */
const OVER_ESTIMATE = 3;
const REAL = ESTIMATE + OVER_ESTIMATE;
const CALLS = 50;
/** About 20 calls' worth of estimates. */
const QUOTA = 20 * ESTIMATE + 5;

for (const [backend, make] of [
  ['memory', async () => memoryStates()],
  ['redis', () => redisStates('gwtest')],
] as const) {
  describe(`gateway quota across two replicas [${backend}]`, function () {
    this.timeout(30_000);
    let states: SharedStates;
    let a: Harness;
    let b: Harness;

    before(async function () {
      if (backend === 'redis' && !endpointOf('redis')) this.skip();
      states = await make();
      a = await startHarness({ sharedState: states.a });
      b = await startHarness({
        sharedState: states.b,
        doubles: a.doubles,
        apiKeys: a.apiKeys,
        organizations: a.organizations,
      });
      a.doubles.content.on('Generate', async (req, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
        return {
          content: 'text',
          usage: {
            model: 'm',
            tokens_input: countTokens(req.prompt),
            tokens_output: req.max_length + OVER_ESTIMATE,
            cost: 0,
          },
          request_id: ctx.requestId,
        };
      });
    });

    after(async () => {
      await b?.stop();
      await a?.stop();
      await states?.close();
    });

    it(`grants no more than the quota allows to ${CALLS} concurrent calls, and counts exactly the real usage`, async () => {
      const { key } = await orgWithKey(a, {
        id: 'shared',
        monthlyTokenQuota: QUOTA,
        rateLimits: { requestsPerMinute: 1000, tokensPerMinute: 1_000_000 },
      });
      const replies = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          (i % 2 === 0 ? a : b).send('POST', '/api/v2/ai/content/generate', {
            key,
            body: { prompt: PROMPT, max_length: MAX_LENGTH },
          }),
        ),
      );
      const granted = replies.filter((r) => r.status === 200).length;
      const refused = replies.filter((r) => r.status === 429);
      expect(granted + refused.length).to.equal(CALLS);
      for (const reply of refused) expect(reply.body.error.code).to.equal('quota_exceeded');
      // Reservations are atomic: at most floor(quota / estimate) fit, whichever replica took them.
      expect(granted)
        .to.be.at.least(1)
        .and.at.most(Math.floor(QUOTA / ESTIMATE));
      // Settlements do not hold up the answers: they land a moment later, batched.
      const counter = quotaKey('shared', periodOf(new Date()).name);
      const counted = await waitFor(async () => {
        const value = await states.a.counters.get(counter);
        return value === granted * REAL ? value : undefined;
      });
      expect(counted).to.equal(granted * REAL);
      // Overshoot only by what granted calls used beyond their estimates (bounded by calls in flight).
      expect(counted).to.be.at.most(QUOTA + granted * OVER_ESTIMATE);
      expect(a.doubles.content.called('Generate')).to.equal(granted);
    });
  });
}
