import { expect } from 'chai';
import { Topics, type AnyEvent } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import type { ApiResponse } from '../support/http';
import { WebhookReceiver, type ReceivedCall } from '../support/receiver';
import { startStack, type RunningStack } from '../support/stack';
import { TopicReader } from '../support/topic-reader';
import { PrivateInfra } from './private-infra';
import { sendWithRetries, type Attempt, type LogicalRequest } from './retrying-client';
import { storedState } from './stored-state';

/**
 * npm run chaos (issue 24, item 9): the distributed stack on a Kafka, MongoDB and Redis of its own,
 * under a mixed load where every call has an Idempotency-Key and is retried as a client is told
 * to; meanwhile each service is killed with SIGKILL and started again, Kafka is restarted, and
 * Redis and MongoDB are stopped and started. Then: no 500 (outages answer 503), every component
 * serves every kind of call again within 5 s of its return, every async request gets exactly one
 * callback, every data event exactly one delivery, and usage is exact per request id: one bill
 * per answered call, the ledger equal to the usage events, and no event dead-lettered (an outage
 * is not a poison message). CHAOS_SHORT=1 (CI) applies five faults instead of eight.
 */
const SHORT = process.env.CHAOS_SHORT === '1';
type Fault =
  | 'content'
  | 'assistant'
  | 'recommendation'
  | 'notification'
  | 'gateway'
  | 'kafka'
  | 'redis'
  | 'mongo';
const FAULTS: Fault[] = SHORT
  ? ['content', 'gateway', 'redis', 'mongo', 'kafka']
  : [
      'content',
      'assistant',
      'recommendation',
      'notification',
      'gateway',
      'kafka',
      'redis',
      'mongo',
    ];
/** A stopped dependency stays down this long. */
const OUTAGE_MS = 3000;
/** Load observed after each fault before the next one. */
const AFTER_FAULT_MS = 6000;
const RECOVERY_LIMIT_MS = 5000;
const WORKERS = 6;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface FaultRecord {
  fault: Fault;
  /** When the component was taken away and when it was back (serving, or the server started). */
  downAt: number;
  backAt: number;
  /** Ms from its return until each kind of call was answered 2xx again. */
  recoveryMs: Record<string, number>;
}

interface Kind {
  name: string;
  billable: boolean;
  send(run: RunningStack, key: string, n: number, callbackUrl: string): Promise<ApiResponse>;
}

const KINDS: Kind[] = [
  {
    name: 'generate',
    billable: true,
    send: (run, key, n) =>
      run.api('/api/v2/ai/content/generate', {
        body: { prompt: `A line about night trains, ${n}`, max_length: 30 },
        headers: { 'Idempotency-Key': key },
        timeoutMs: 20_000,
      }),
  },
  {
    name: 'async generate',
    billable: false,
    send: (run, key, n, callbackUrl) =>
      run.api('/api/v2/ai/content/generate', {
        body: { prompt: `A note about ferries, ${n}`, max_length: 30, webhookUrl: callbackUrl },
        headers: { 'Idempotency-Key': key },
        timeoutMs: 20_000,
      }),
  },
  {
    name: 'transform',
    billable: true,
    send: (run, key, n) =>
      run.api('/api/v2/ai/content/transform', {
        body: {
          action: 'summarize',
          text: `Order ${n} shipped today. It arrives on Monday. The box holds two maps and a compass.`,
          target_length: 'short',
        },
        headers: { 'Idempotency-Key': key },
        timeoutMs: 20_000,
      }),
  },
  {
    name: 'chat',
    billable: true,
    send: (run, key, n) =>
      run.api('/api/v2/ai/assistants/chat', {
        body: {
          user_id: `u${n % 9}`,
          session_id: `chaos-${key}`,
          messages: [{ role: 'user', content: 'Any concerts in Berlin this weekend?' }],
        },
        headers: { 'Idempotency-Key': key },
        timeoutMs: 20_000,
      }),
  },
  {
    name: 'interactions',
    billable: false,
    send: (run, key, n) =>
      run.api('/api/v2/interactions', {
        body: {
          interactions: [
            {
              userId: `u${n % 9}`,
              itemId: `item-${n % 17}`,
              type: 'view',
              timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
            },
          ],
        },
        headers: { 'Idempotency-Key': key },
        timeoutMs: 20_000,
      }),
  },
  {
    name: 'webhooks',
    billable: false,
    send: (run) => run.api('/api/webhooks', { timeoutMs: 20_000 }),
  },
];

function requestIdOf(body: { request_id?: string; requestId?: string } | undefined): string {
  return body?.request_id ?? body?.requestId ?? '';
}

function tokensOf(body: any): number {
  const usage = body?.usage ?? {};
  return usage.tokens_used ?? (usage.tokens_input ?? 0) + (usage.tokens_output ?? 0);
}

/** Distinct webhook-ids per key (a retried delivery keeps its webhook-id: the same message). */
function messagesBy(calls: ReceivedCall[], keyOf: (call: ReceivedCall) => string | undefined) {
  const messages = new Map<string, Set<string>>();
  for (const call of calls) {
    const key = keyOf(call);
    if (!key) continue;
    const ids = messages.get(key) ?? new Set<string>();
    ids.add(String(call.headers['webhook-id']));
    messages.set(key, ids);
  }
  return messages;
}

describe(`chaos: faults under keyed load (${SHORT ? 'short' : 'full'} form: ${FAULTS.join(', ')})`, function () {
  this.timeout(0);
  const infra = new PrivateInfra();
  let run: RunningStack;
  let receiver: WebhookReceiver;
  let usage: TopicReader;
  let data: TopicReader;
  let deadLetters: TopicReader;
  const requests: LogicalRequest[] = [];
  const faults: FaultRecord[] = [];
  let phase = 'warm-up';
  let stopping = false;
  let workers: Promise<void>[] = [];

  before(async () => {
    Object.assign(process.env, await infra.start());
    receiver = await new WebhookReceiver().start();
    run = await startStack({
      DEV_MONTHLY_TOKEN_QUOTA: '1000000000',
      WEBHOOK_RETRY_SCHEDULE: '0,250ms,500ms,1s,2s,4s,8s,15s,30s',
      // Kept in memory (printed only with STACK_LOG_LEVEL): a lost request's trail is in it.
      LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'info',
    });
    usage = await new TopicReader(`${run.topicPrefix}${Topics.usage}`).start();
    data = await new TopicReader(`${run.topicPrefix}${Topics.data}`).start();
    deadLetters = await new TopicReader(`${run.topicPrefix}${Topics.deadLetter}`).start();
    const hook = await run.api('/api/webhooks', {
      body: { event: 'data_updated', url: `${receiver.url}/events` },
    });
    expect(hook.status, hook.text).to.equal(201);
  });

  after(async () => {
    stopping = true;
    await Promise.all(workers);
    await run?.stack.stopAll();
    await usage?.stop();
    await data?.stop();
    await deadLetters?.stop();
    await receiver?.stop();
    await infra.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && run)
      process.stderr.write(
        `${run.log
          .filter((l) => /"level":(50|60)/.test(l))
          .slice(-40)
          .join('\n')}\n`,
      );
  });

  /** What the mesh says of a lost request: its state as the API answers it, and every log line naming it. */
  async function traceLost(id: string): Promise<void> {
    const state = await run.api(`/api/v2/requests/${id}`).catch(String);
    const lines = run.log.filter((line) => line.includes(id));
    process.stderr.write(
      `      lost ${id}: GET /api/v2/requests -> ${typeof state === 'string' ? state : `${state.status} ${state.text.slice(0, 300)}`}\n` +
        `${lines.join('\n')}\n`,
    );
    process.stderr.write(`${await storedState(id)}\n`);
  }

  async function worker(index: number): Promise<void> {
    for (let n = index; !stopping; n += WORKERS) {
      const kind = KINDS[n % KINDS.length]!;
      const request: LogicalRequest = {
        kind: kind.name,
        key: `chaos-${process.pid}-${n}`,
        attempts: [],
      };
      requests.push(request);
      await sendWithRetries(
        request,
        () => kind.send(run, request.key, n, `${receiver.url}/result`),
        () => phase,
      );
      await sleep(30);
    }
  }

  /** Takes the component away and brings it back; returns when it is back. */
  async function apply(fault: Fault): Promise<{ downAt: number; backAt: number }> {
    const downAt = Date.now();
    if (fault === 'kafka') await infra.restartKafka();
    else if (fault === 'redis' || fault === 'mongo') {
      await infra.stopServer(fault);
      await sleep(OUTAGE_MS);
      await infra.startServer(fault);
    } else {
      await run.stack.stop(fault, 'SIGKILL');
      await run.stack.start(fault);
    }
    return { downAt, backAt: Date.now() };
  }

  function recoveryAfter(backAt: number): Record<string, number> {
    const recovery: Record<string, number> = {};
    for (const kind of KINDS) {
      const answered = requests
        .filter((r) => r.kind === kind.name)
        .flatMap((r) => r.attempts)
        .filter((a) => a.status >= 200 && a.status < 300 && a.sentAt >= backAt);
      recovery[kind.name] = answered.length
        ? Math.min(...answered.map((a) => a.answeredAt)) - backAt
        : Infinity;
    }
    return recovery;
  }

  it('runs the keyed mixed load through every fault', async () => {
    workers = Array.from({ length: WORKERS }, (_, i) => worker(i));
    await sleep(5000);
    for (const fault of FAULTS) {
      phase = `${fault} down`;
      const { downAt, backAt } = await apply(fault);
      phase = `after ${fault}`;
      await sleep(AFTER_FAULT_MS);
      const recoveryMs = recoveryAfter(backAt);
      faults.push({ fault, downAt, backAt, recoveryMs });
      process.stdout.write(
        `      ${fault}: away ${backAt - downAt} ms; served again after ${Object.entries(recoveryMs)
          .map(([kind, ms]) => `${kind} ${ms} ms`)
          .join(', ')}\n`,
      );
    }
    phase = 'drain';
    stopping = true;
    await Promise.all(workers);
    const statuses: Record<string, number> = {};
    for (const a of requests.flatMap((r) => r.attempts))
      statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    process.stdout.write(
      `      ${requests.length} logical requests, ${requests.reduce((s, r) => s + r.attempts.length, 0)} attempts: ${JSON.stringify(statuses)}\n`,
    );
    expect(requests.length).to.be.greaterThan(FAULTS.length * 10);
  });

  it('answers every logical request in the end (retries with the same key)', () => {
    const unanswered = requests.filter((r) => !r.final);
    expect(
      unanswered.map((r) => `${r.kind} ${r.key}: ${r.attempts.map((a) => a.status).join(',')}`),
    ).to.deep.equal([]);
    const refused = requests.filter(
      (r) => r.final && (r.final.status < 200 || r.final.status >= 300),
    );
    expect(
      refused.map((r) => `${r.kind}: ${r.final!.status} ${r.final!.text.slice(0, 200)}`),
    ).to.deep.equal([]);
  });

  it('never answers 500 or 502; an outage is 503 with Retry-After (or 409 while a key is leased), never a long wait', () => {
    const attempts: Array<Attempt & { kind: string }> = requests.flatMap((r) =>
      r.attempts.map((a) => ({ ...a, kind: r.kind })),
    );
    const broken = attempts.filter((a) => a.status === 500 || a.status === 502);
    expect(
      broken.map((a) => `${a.kind} in "${a.phase}": ${a.status} ${a.code ?? ''}`),
    ).to.deep.equal([]);
    // One rule, whatever is away (a dependency or a restarting service): every 503 says when to retry.
    const bare = attempts.filter((a) => a.status === 503 && !a.retryAfter);
    expect(bare.map((a) => `${a.kind} in "${a.phase}": 503 ${a.code ?? ''}`)).to.deep.equal([]);
    for (const fault of ['redis', 'mongo', 'kafka'] as const) {
      const window = faults.find((f) => f.fault === fault);
      if (!window) continue;
      const during = attempts.filter((a) => a.sentAt >= window.downAt && a.sentAt < window.backAt);
      const unexpected = during.filter(
        (a) => !(a.status >= 200 && a.status < 300) && a.status !== 503 && a.status !== 409,
      );
      expect(
        unexpected.map((a) => `${a.kind}: ${a.status}`),
        `${fault} down`,
      ).to.deep.equal([]);
      const refused = during
        .filter((a) => a.status === 503)
        .sort((x, y) => y.answeredAt - y.sentAt - (x.answeredAt - x.sentAt));
      const slowest = refused[0];
      process.stdout.write(
        `      ${fault} down: ${during.length} attempts, ${refused.length} answered 503, the slowest in ${slowest ? `${slowest.answeredAt - slowest.sentAt} ms (${slowest.kind})` : '-'}\n`,
      );
    }
  });

  it(`serves every kind of call again within ${RECOVERY_LIMIT_MS / 1000} s of each component's return`, () => {
    const late = faults.flatMap((f) =>
      Object.entries(f.recoveryMs)
        .filter(([, ms]) => ms >= RECOVERY_LIMIT_MS)
        .map(([kind, ms]) => `${f.fault} -> ${kind}: ${ms} ms`),
    );
    expect(late).to.deep.equal([]);
  });

  it('delivers exactly one callback per accepted async request (none lost, none duplicated)', async () => {
    const accepted = requests
      .filter((r) => r.kind === 'async generate' && r.final?.status === 202)
      .map((r) => r.final!.body.requestId as string);
    expect(accepted.length).to.be.greaterThan(0);
    const byRequest = () =>
      messagesBy(
        receiver.calls.filter((c) => c.path.endsWith('/result')),
        (c) => c.body?.requestId,
      );
    await waitFor(() => accepted.every((id) => byRequest().has(id)), 120_000).catch(
      () => undefined,
    );
    const messages = byRequest();
    const lost = accepted.filter((id) => !messages.has(id));
    const duplicated = [...messages].filter(([, ids]) => ids.size > 1).map(([id]) => id);
    process.stdout.write(
      `      callbacks: ${accepted.length} accepted, ${lost.length} lost, ${duplicated.length} duplicated\n`,
    );
    for (const id of lost) await traceLost(id);
    expect({ lost, duplicated }).to.deep.equal({ lost: [], duplicated: [] });
  });

  it('delivers every data event on the bus exactly once to the registered webhook', async () => {
    const stored = requests.filter((r) => r.kind === 'interactions' && r.final?.status === 200);
    const events = () =>
      new Map(
        data.events
          .filter((e: AnyEvent) => e.type === 'data.updated')
          .map((e) => [e.id, e] as const),
      );
    const delivered = () =>
      messagesBy(
        receiver.calls.filter((c) => c.path.endsWith('/events')),
        (c) => c.body?.id,
      );
    await waitFor(
      () =>
        events().size >= stored.length && [...events().keys()].every((id) => delivered().has(id)),
      120_000,
    ).catch(() => undefined);
    const onBus = events();
    const messages = delivered();
    const lost = [...onBus.keys()].filter((id) => !messages.has(id));
    const duplicated = [...messages].filter(([, ids]) => ids.size > 1).map(([id]) => id);
    process.stdout.write(
      `      data events: ${stored.length} interaction calls stored, ${onBus.size} events on the bus, ${lost.length} lost, ${duplicated.length} duplicated\n`,
    );
    expect(onBus.size).to.be.at.least(stored.length);
    expect({ lost, duplicated }).to.deep.equal({ lost: [], duplicated: [] });
  });

  it('bills each answered call exactly once, under its request id, and the ledger equals the usage events', async () => {
    const answered = requests.filter(
      (r) => KINDS.find((k) => k.name === r.kind)!.billable && r.final?.status === 200,
    );
    const byId = () => {
      const distinct = new Map<string, AnyEvent>();
      for (const e of usage.events) if (e.type === 'usage.recorded') distinct.set(e.id, e);
      return distinct;
    };
    const succeededFor = (requestId: string) =>
      [...byId().values()].filter(
        (e) => (e.data as any).requestId === requestId && (e.data as any).outcome === 'succeeded',
      );
    await waitFor(
      () => answered.every((r) => succeededFor(requestIdOf(r.final!.body)).length > 0),
      60_000,
    ).catch(() => undefined);
    const problems: string[] = [];
    for (const r of answered) {
      const id = requestIdOf(r.final!.body);
      const events = succeededFor(id);
      if (events.length !== 1) problems.push(`${r.kind} ${id}: ${events.length} bills`);
      else {
        const { tokensInput, tokensOutput } = events[0]!.data as any;
        if (tokensInput + tokensOutput !== tokensOf(r.final!.body))
          problems.push(
            `${r.kind} ${id}: billed ${tokensInput + tokensOutput}, answered ${tokensOf(r.final!.body)}`,
          );
      }
    }
    const onBus = [...byId().values()].reduce(
      (sum, e) => sum + (e.data as any).tokensInput + (e.data as any).tokensOutput,
      0,
    );
    const ledger = await waitFor(async () => {
      const report = await run.api('/api/v2/usage');
      return report.status === 200 && report.body.used === onBus ? report.body : undefined;
    }, 60_000).catch(async () => (await run.api('/api/v2/usage')).body);
    process.stdout.write(
      `      usage: ${answered.length} answered billable calls, ${byId().size} usage events (${onBus} tokens), ledger ${ledger.used} tokens, ${problems.length} problems\n`,
    );
    expect(problems).to.deep.equal([]);
    expect(ledger.used).to.equal(onBus);
  });

  it('sends no event to the dead-letter topic: an outage is waited out, not a poison message', () => {
    const dead = deadLetters.events.map((e) => `${e.type} ${e.id}`);
    process.stdout.write(`      dead letters: ${dead.length}\n`);
    expect(dead).to.deep.equal([]);
  });
});
