import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import { endpointOf, waitFor } from '@switchyard/shared/testing';
import { COST_UNITS_PER_CURRENCY, budgetCounterKey, budgetPeriodOf } from '../src/metering/budgets';
import { InMemoryTeamStore } from '../src/store';
import { orgWithKey } from './accounts-helpers';
import { memoryStates, redisStates, type SharedStates } from './replica-states';
import { startHarness, type Harness } from './harness';

const PROMPT = 'Two replicas share one team budget';
const MAX_LENGTH = 40;
/** The default model's prices in the doubles: 0.15 and 0.6 per million tokens. */
const ESTIMATED_COST = (countTokens(PROMPT) * 0.15 + MAX_LENGTH * 0.6) / 1e6;
/** What each call reports it cost: less than its estimate, as a call within max_length does. */
const REAL_COST = 0.00001;
const CALLS = 40;
/** About twelve calls' estimates. */
const BUDGET = Number((12 * ESTIMATED_COST + 0.000001).toFixed(6));

for (const [backend, make] of [
  ['memory', async () => memoryStates()],
  ['redis', () => redisStates('gwbudget')],
] as const) {
  describe(`gateway team cost budget across two replicas [${backend}]`, function () {
    this.timeout(30_000);
    let states: SharedStates;
    let a: Harness;
    let b: Harness;

    before(async function () {
      if (backend === 'redis' && !endpointOf('redis')) this.skip();
      states = await make();
      const teams = new InMemoryTeamStore();
      a = await startHarness({ sharedState: states.a, teams });
      b = await startHarness({
        sharedState: states.b,
        doubles: a.doubles,
        apiKeys: a.apiKeys,
        organizations: a.organizations,
        teams,
      });
      a.doubles.content.on('Generate', async (_req, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 30));
        return {
          content: 'text',
          usage: { model: 'gpt-small', tokens_input: 5, tokens_output: 5, cost: REAL_COST },
          request_id: ctx.requestId,
        };
      });
    });

    after(async () => {
      await b?.stop();
      await a?.stop();
      await states?.close();
    });

    it(`lets ${CALLS} concurrent calls of two keys on two replicas spend no more than the team's budget`, async () => {
      await orgWithKey(a, { id: 'budgeted' });
      const team = await a.admin('POST', '/api/v2/admin/organizations/budgeted/teams', {
        name: 'shared',
        budget: { cost: BUDGET, period: 'day' },
      });
      expect(team.status, JSON.stringify(team.body)).to.equal(201);
      const keys = await Promise.all(
        [0, 1].map(async () => {
          const issued = await a.admin('POST', '/api/v2/admin/organizations/budgeted/keys', {
            teamId: team.body.teamId,
          });
          return issued.body.key as string;
        }),
      );
      const replies = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          (i % 2 === 0 ? a : b).send('POST', '/api/v2/ai/content/generate', {
            key: keys[Math.floor(i / 2) % 2],
            body: { prompt: PROMPT, max_length: MAX_LENGTH },
          }),
        ),
      );
      const granted = replies.filter((r) => r.status === 200).length;
      const refused = replies.filter((r) => r.status === 429);
      expect(
        granted + refused.length,
        JSON.stringify(
          replies.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.body),
        ),
      ).to.equal(CALLS);
      for (const reply of refused)
        expect(reply.body.error.details[0]).to.include({ level: 'team', limit: 'cost' });
      // Reservations are atomic: at most budget / estimate of them are held at once.
      expect(granted).to.be.at.least(12);
      // Settled to what the calls cost, whichever replica reserved and settled them.
      const period = budgetPeriodOf('day', new Date()).name;
      const counter = budgetCounterKey(
        { level: 'team', organization: 'budgeted', id: team.body.teamId },
        'cost',
        period,
      );
      const settled = granted * Math.ceil(REAL_COST * COST_UNITS_PER_CURRENCY);
      // Settlements do not hold up the answers: they land a moment later.
      const counted = await waitFor(async () => {
        const value = await states.a.counters.get(counter);
        return value === settled ? value : undefined;
      });
      expect(counted).to.be.at.most(BUDGET * COST_UNITS_PER_CURRENCY);
    });
  });
}
