import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { WebhookReceiver } from '../support/receiver';
import { startStack, type RunningStack } from '../support/stack';
import { PrivateInfra } from './private-infra';
import { sendWithRetries, type LogicalRequest } from './retrying-client';
import { storedState } from './stored-state';

/**
 * Async generate requests accepted around MongoDB stops (issue 24's lost callback): a steady stream
 * of keyed async generates with a webhookUrl while the MongoDB wire server is stopped and started
 * again MONGO_STOPS times (default 4, 2 with CHAOS_SHORT=1); then every accepted request must read
 * `completed` and have had exactly one callback. It fails faster than the whole fault suite, which
 * stops MongoDB once: deliveries reported created although their insert was cut off by the stop.
 */
const STOPS = Number(process.env.MONGO_STOPS ?? (process.env.CHAOS_SHORT === '1' ? 2 : 4));
const OUTAGE_MS = 3000;
const BETWEEN_MS = 4000;
const WORKERS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`chaos: async generates around ${STOPS} MongoDB stops`, function () {
  const infra = new PrivateInfra();
  let run: RunningStack;
  let receiver: WebhookReceiver;
  const requests: LogicalRequest[] = [];
  let stopping = false;
  let phase = 'warm-up';

  before(async () => {
    Object.assign(process.env, await infra.start());
    receiver = await new WebhookReceiver().start();
    run = await startStack({
      WEBHOOK_RETRY_SCHEDULE: '0,250ms,500ms,1s,2s,4s,8s,15s,30s',
      LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'info',
    });
  });

  after(async () => {
    stopping = true;
    await run?.stack.stopAll();
    await receiver?.stop();
    await infra.stop();
  });

  async function worker(index: number): Promise<void> {
    for (let n = index; !stopping; n += WORKERS) {
      const request: LogicalRequest = {
        kind: 'async generate',
        key: `stops-${process.pid}-${n}`,
        attempts: [],
      };
      requests.push(request);
      await sendWithRetries(
        request,
        () =>
          run.api('/api/v2/ai/content/generate', {
            body: {
              prompt: `A note about ferries, ${n}`,
              max_length: 30,
              webhookUrl: `${receiver.url}/result`,
            },
            headers: { 'Idempotency-Key': request.key },
            timeoutMs: 20_000,
          }),
        () => phase,
      );
      await sleep(20);
    }
  }

  it('completes every accepted request with exactly one callback', async () => {
    const workers = Array.from({ length: WORKERS }, (_, i) => worker(i));
    await sleep(3000);
    for (let stop = 1; stop <= STOPS; stop++) {
      phase = `mongo stop ${stop}`;
      await infra.stopServer('mongo');
      await sleep(OUTAGE_MS);
      await infra.startServer('mongo');
      phase = `after stop ${stop}`;
      await sleep(BETWEEN_MS);
    }
    stopping = true;
    await Promise.all(workers);
    const accepted = requests
      .filter((r) => r.final?.status === 202)
      .map((r) => r.final!.body.requestId as string);
    // Messages per request: a callback sent again with the same webhook-id (its outcome could not
    // be recorded) is one message, which receivers deduplicate.
    const callbacks = () => {
      const byRequest = new Map<string, Set<string>>();
      for (const call of receiver.calls.filter((c) => c.path.endsWith('/result'))) {
        const id = call.body?.requestId as string;
        byRequest.set(id, (byRequest.get(id) ?? new Set()).add(String(call.headers['webhook-id'])));
      }
      return byRequest;
    };
    await waitFor(() => accepted.every((id) => callbacks().has(id)), 90_000).catch(() => undefined);
    const lost = accepted.filter((id) => !callbacks().has(id));
    // A request reads completed once its callback's delivery is recorded: one sent while MongoDB
    // was down is recorded when it is sent again, after its lease, so the stragglers are waited for.
    const states = new Map<string, string>();
    const unfinished = async (ids: string[]) => {
      states.clear();
      for (const id of ids) {
        const state = await run.api(`/api/v2/requests/${id}`);
        if (state.body?.status !== 'completed')
          states.set(id, `${state.status} ${state.text.slice(0, 300)}`);
      }
      return states.size === 0;
    };
    await unfinished(accepted);
    await waitFor(() => unfinished([...states.keys()]), 60_000, 1000).catch(() => undefined);
    process.stdout.write(
      `      ${accepted.length} accepted, ${lost.length} callbacks lost, ${states.size} not completed\n`,
    );
    for (const id of new Set([...lost, ...states.keys()])) {
      process.stderr.write(`      ${id}: ${states.get(id) ?? 'completed'}\n`);
      process.stderr.write(`${run.log.filter((line) => line.includes(id)).join('\n')}\n`);
      process.stderr.write(`${await storedState(id)}\n`);
    }
    expect(accepted.length).to.be.greaterThan(STOPS * 5);
    expect({ lost, notCompleted: [...states.keys()] }).to.deep.equal({
      lost: [],
      notCompleted: [],
    });
    const duplicated = [...callbacks()].filter(([, ids]) => ids.size > 1).map(([id]) => id);
    expect(duplicated).to.deep.equal([]);
  });
});
