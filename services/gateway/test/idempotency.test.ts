import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { endpointOf, uniqueName, waitFor } from '@switchyard/shared/testing';
import { quotaKey } from '../src/metering/quota';
import { routeTable } from '../src/routes';
import { buildOpenApi } from '../src/openapi';
import { periodOf } from '../src/metering/period';
import { encodeRecord, fingerprintOf, recordKey } from '../src/idempotency/records';
import { orgWithKey } from './accounts-helpers';
import { memoryStates, redisStates, type SharedStates } from './replica-states';
import { resetDoubles, startHarness, type Harness, type Reply } from './harness';

const GENERATE = '/api/v2/ai/content/generate';
/** The content double answers generate with 12 input + 34 output tokens. */
const GENERATE_TOKENS = 46;
const body = { prompt: 'Write a tagline', max_length: 10 };

const newKey = () => uniqueName('idem');
const keyed = (key: string, extra: Record<string, string> = {}) => ({
  'Idempotency-Key': key,
  ...extra,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectReplayOf(replay: Reply, original: Reply): void {
  expect(replay.status).to.equal(original.status);
  expect(replay.body).to.deep.equal(original.body);
  expect(replay.headers.get('idempotent-replayed')).to.equal('true');
  expect(replay.requestId, 'X-Request-Id of the original').to.equal(original.requestId);
  expect(replay.headers.get('content-type')).to.equal(original.headers.get('content-type'));
}

function expectConflict(reply: Reply): void {
  expect(reply.status).to.equal(409);
  expect(reply.body.error.code).to.equal('conflict');
  expect(reply.headers.get('idempotent-replayed')).to.equal(null);
}

describe('gateway Idempotency-Key', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it('a replayed webhook registration answers without the secret, which is never stored (issue 10, reproduction 7)', async () => {
    const key = newKey();
    const registration = { event: 'data_updated', url: 'https://hooks.example.com/x' };
    const first = await h.send('POST', '/api/webhooks', {
      body: registration,
      headers: keyed(key),
    });
    expect(first.status).to.equal(201);
    expect(first.body.secret).to.match(/^whsec_/);
    const replay = await h.send('POST', '/api/webhooks', {
      body: registration,
      headers: keyed(key),
    });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    const { secret: _secret, ...withoutSecret } = first.body;
    expect(replay.body).to.deep.equal(withoutSecret);
    const stored = await h.sharedState.idempotencyKeys.remember(
      recordKey('org:org_test', key),
      'probe',
      60,
    );
    expect(stored, 'the stored answer').to.be.a('string').and.include(first.body.id);
    expect(stored).to.not.include(first.body.secret);
  });

  const generate = (key: string, json: unknown = body) =>
    h.send('POST', GENERATE, { body: json, headers: keyed(key) });

  it('replays the stored answer of a retry: same status, body and request id, downstream called once', async () => {
    const key = newKey();
    const first = await generate(key);
    expect(first.status).to.equal(200);
    expect(first.headers.get('idempotency-key')).to.equal(key);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(first.body.request_id).to.equal(first.requestId);
    const retry = await generate(key);
    expectReplayOf(retry, first);
    expect(retry.headers.get('idempotency-key')).to.equal(key);
    expect(retry.body.request_id).to.equal(first.requestId);
    expect(h.doubles.content.called('Generate')).to.equal(1);
  });

  it('refuses the same key with a different body or path: 409 conflict naming the header', async () => {
    const key = newKey();
    expect((await generate(key)).status).to.equal(200);
    const otherBody = await generate(key, { ...body, prompt: 'Something else' });
    expectConflict(otherBody);
    expect(otherBody.body.error.message).to.equal(
      'Idempotency-Key was used with a different request',
    );
    expect(otherBody.body.error.details[0].field).to.equal('Idempotency-Key');
    const otherPath = await h.send('POST', '/api/v2/ai/content/transform', {
      body: { action: 'summarize', text: 'x' },
      headers: keyed(key),
    });
    expectConflict(otherPath);
    expect(h.doubles.content.called('Generate')).to.equal(1);
    expect(h.doubles.content.called('Transform')).to.equal(0);
  });

  it('lets one of two concurrent duplicates run: the other is 409 (Retry-After: 1) or a replay', async () => {
    h.doubles.content.on('Generate', async (_req, ctx) => {
      await sleep(300);
      return {
        content: 'slow',
        usage: { model: 'm', tokens_input: 1, tokens_output: 1, cost: 0 },
        request_id: ctx.requestId,
      };
    });
    const key = newKey();
    const replies = await Promise.all([generate(key), generate(key)]);
    const originals = replies.filter(
      (r) => r.status === 200 && r.headers.get('idempotent-replayed') === null,
    );
    expect(originals).to.have.length(1);
    const other = replies.find((r) => r !== originals[0])!;
    if (other.status === 409) {
      expectConflict(other);
      expect(other.headers.get('retry-after')).to.equal('1');
      expect(other.body.error.message).to.include('still being processed');
    } else {
      expectReplayOf(other, originals[0]!);
    }
    expect(h.doubles.content.called('Generate')).to.equal(1);
    expectReplayOf(await generate(key), originals[0]!);
  });

  it('does not store a 5xx: the retry with the same key calls downstream again', async () => {
    h.doubles.content.on('Generate', async () => {
      throw new AppError('upstream_error', 'provider down');
    });
    const key = newKey();
    expect((await generate(key)).status).to.equal(502);
    resetDoubles(h);
    const second = await generate(key);
    expect(second.status).to.equal(200);
    expect(second.headers.get('idempotent-replayed')).to.equal(null);
    expect(h.doubles.content.called('Generate')).to.equal(1);
    expectReplayOf(await generate(key), second);
  });

  it('stores a 400: the same invalid request gets the same answer, replayed', async () => {
    const key = newKey();
    const invalid = { prompt: 'x', max_length: 0 };
    const first = await generate(key, invalid);
    expect(first.status).to.equal(400);
    expect(first.body.error.details[0].field).to.equal('/max_length');
    const retry = await generate(key, invalid);
    expectReplayOf(retry, first);
    expect(retry.body.request_id).to.equal(first.requestId);
    expect(h.doubles.content.calls).to.have.length(0);
  });

  it('stores an asynchronous 202: a retried submit is not submitted twice', async () => {
    const key = newKey();
    const asyncBody = { ...body, webhookUrl: 'https://hooks.example.com/in' };
    const first = await generate(key, asyncBody);
    expect(first.status).to.equal(202);
    expect(first.body).to.deep.equal({ status: 'processing', requestId: first.requestId });
    const retry = await generate(key, asyncBody);
    expectReplayOf(retry, first);
    expect(h.doubles.content.called('SubmitGenerate')).to.equal(1);
  });

  it('refuses Idempotency-Key with stream: true (400 on the header); streams are not replayable', async () => {
    const reply = await generate(newKey(), { ...body, stream: true });
    expect(reply.status).to.equal(400);
    expect(reply.body.error.code).to.equal('invalid_request');
    expect(reply.body.error.details[0].field).to.equal('Idempotency-Key');
    expect(h.doubles.content.called('GenerateStream')).to.equal(0);
  });

  it('refuses a malformed key with 400 invalid_request on the header', async () => {
    for (const bad of ['k'.repeat(256), 'tab\there']) {
      const reply = await generate(bad);
      expect(reply.status, JSON.stringify(bad)).to.equal(400);
      expect(reply.body.error.code).to.equal('invalid_request');
      expect(reply.body.error.details[0].field).to.equal('Idempotency-Key');
      expect(reply.headers.get('idempotency-key')).to.equal(null);
    }
    expect((await generate('k'.repeat(255))).status, '255 characters are allowed').to.equal(200);
    expect(h.doubles.content.called('Generate')).to.equal(1);
  });

  it('ignores the header on routes that are not idempotent-flagged (GET)', async () => {
    const key = newKey();
    for (let i = 0; i < 2; i++) {
      const reply = await h.send('GET', '/api/v2/models', { headers: keyed(key) });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('idempotent-replayed')).to.equal(null);
      expect(reply.headers.get('idempotency-key')).to.equal(null);
    }
    expect(h.doubles.content.called('ListModels')).to.equal(2);
  });

  it('scopes keys by organization: another organization with the same key is processed anew', async () => {
    const key = newKey();
    const other = await orgWithKey(h, {
      id: uniqueName('idem-scope')
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-'),
    });
    expect((await generate(key)).status).to.equal(200);
    const theirs = await h.send('POST', GENERATE, { key: other.key, body, headers: keyed(key) });
    expect(theirs.status).to.equal(200);
    expect(theirs.headers.get('idempotent-replayed')).to.equal(null);
    expect(h.doubles.content.called('Generate')).to.equal(2);
  });

  it('charges neither quota nor rate limits again for a replay', async () => {
    const { key } = await orgWithKey(h, {
      id: 'idem-quota',
      monthlyTokenQuota: 10_000,
      rateLimits: { requestsPerMinute: 2 },
    });
    const counter = () =>
      h.sharedState.counters.get(quotaKey('idem-quota', periodOf(new Date()).name));
    const idem = newKey();
    const first = await h.send('POST', GENERATE, { key, body, headers: keyed(idem) });
    expect(first.status).to.equal(200);
    expect(await counter()).to.equal(GENERATE_TOKENS);
    for (let i = 0; i < 3; i++)
      expectReplayOf(await h.send('POST', GENERATE, { key, body, headers: keyed(idem) }), first);
    expect(await counter(), 'quota counted once').to.equal(GENERATE_TOKENS);
    // Two requests a minute: the replays did not use up the second one.
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(429);
    expect(h.doubles.content.called('Generate')).to.equal(2);
  });

  it('answers 409 (Retry-After: 1) while a live attempt holds the key (pending, lease held)', async () => {
    const key = newKey();
    const name = recordKey('org:org_test', key);
    const fingerprint = fingerprintOf('POST', GENERATE, JSON.stringify(body));
    await h.sharedState.idempotencyKeys.remember(
      name,
      encodeRecord({ state: 'pending', fingerprint }),
      60,
    );
    const token = await h.sharedState.locks.acquire(name, 2000);
    expect(token).to.be.a('string');
    const reply = await generate(key);
    expectConflict(reply);
    expect(reply.headers.get('retry-after')).to.equal('1');
    expect(h.doubles.content.calls).to.have.length(0);
    await h.sharedState.locks.release(name, token!);
  });

  it('takes over at once a key whose attempt died without an answer (pending, no live lease), and keeps the new answer', async () => {
    const key = newKey();
    const fingerprint = fingerprintOf('POST', GENERATE, JSON.stringify(body));
    // What a gateway killed mid-call leaves: the pending record, and a lease nobody renews.
    await h.sharedState.idempotencyKeys.remember(
      recordKey('org:org_test', key),
      encodeRecord({ state: 'pending', fingerprint }),
      60,
    );
    const retry = await generate(key);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
    expect(h.doubles.content.called('Generate')).to.equal(1);
    expect(h.doubles.content.last('Generate').context.idempotencyKey).to.equal(key);
    expectReplayOf(await generate(key), retry);
    expect(h.doubles.content.called('Generate')).to.equal(1);
  });

  it('renews the lease of an attempt that runs past it: a retry meanwhile is 409, one after gets its answer', async () => {
    const short = await startHarness({ doubles: h.doubles, idempotencyLeaseMs: 300 });
    // The first attempt runs until the retry has been answered.
    let finish!: () => void;
    const retried = new Promise<void>((resolve) => (finish = resolve));
    try {
      h.doubles.content.on('Generate', async (_request, context) => {
        await retried;
        return { content: 'slow', request_id: context.requestId, usage: { model: 'builtin' } };
      });
      const key = newKey();
      const send = () => short.send('POST', GENERATE, { body, headers: keyed(key) });
      const first = send();
      await waitFor(() => h.doubles.content.called('Generate') === 1, 10_000);
      await sleep(700); // over two leases since the first attempt took the key
      const during = await send();
      finish();
      expectConflict(during);
      expect(during.headers.get('retry-after')).to.equal('1');
      const answered = await first;
      expect(answered.status).to.equal(200);
      expectReplayOf(await send(), answered);
      expect(h.doubles.content.called('Generate')).to.equal(1);
    } finally {
      finish();
      await short.stop();
    }
  });

  it('serves admin creates too (scoped to the admin API)', async () => {
    const key = newKey();
    const org = { id: 'idem-admin', name: 'Idem', monthlyTokenQuota: 1000 };
    const send = () =>
      h.send('POST', '/api/v2/admin/organizations', {
        body: org,
        auth: false,
        headers: keyed(key, { authorization: 'Bearer adm_test_0123456789abcdef' }),
      });
    const first = await send();
    expect(first.status).to.equal(201);
    expectReplayOf(await send(), first);
    expect(h.doubles.notification.called('PutOrganizationPolicy')).to.equal(1);
  });

  it('documents the header as a reusable parameter on the flagged operations only', () => {
    const doc = buildOpenApi(routeTable) as Record<string, any>;
    expect(doc.components.parameters.IdempotencyKey).to.include({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
    });
    const ref = { $ref: '#/components/parameters/IdempotencyKey' };
    const generateOp = doc.paths[GENERATE].post;
    expect(generateOp.parameters).to.deep.include(ref);
    expect(generateOp.responses).to.have.property('409');
    // Generate is also cached: the cache's header comes beside the idempotency ones.
    expect(generateOp.responses['200'].headers).to.have.keys(
      'Idempotency-Key',
      'Idempotent-Replayed',
      'X-Switchyard-Cache',
    );
    expect(doc.paths['/api/webhooks'].post.responses['201'].headers).to.have.keys(
      'Idempotency-Key',
      'Idempotent-Replayed',
    );
    expect(doc.paths['/api/webhooks'].post.parameters).to.deep.include(ref);
    expect(doc.paths['/api/v2/models'].get.parameters ?? []).to.not.deep.include(ref);
    expect(doc.paths['/api/v2/catalog/items/{itemId}'].delete.parameters).to.not.deep.include(ref);
    expect(doc.components.responses.Error409.headers).to.have.property('Retry-After');
  });
});

for (const [backend, make] of [
  ['memory', async () => memoryStates()],
  ['redis', () => redisStates('gwidem')],
] as const) {
  describe(`gateway Idempotency-Key across two replicas [${backend}]`, function () {
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
    });

    after(async () => {
      await b?.stop();
      await a?.stop();
      await states?.close();
    });

    afterEach(() => a && resetDoubles(a));

    it('a retry sent to the other replica is replayed from the shared state', async () => {
      const key = newKey();
      const first = await a.send('POST', GENERATE, { body, headers: keyed(key) });
      expect(first.status).to.equal(200);
      expectReplayOf(await b.send('POST', GENERATE, { body, headers: keyed(key) }), first);
      expectConflict(
        await b.send('POST', GENERATE, { body: { ...body, max_length: 11 }, headers: keyed(key) }),
      );
      expect(a.doubles.content.called('Generate')).to.equal(1);
    });

    it('concurrent duplicates on both replicas run downstream once', async () => {
      a.doubles.content.on('Generate', async (_req, ctx) => {
        await sleep(200);
        return {
          content: 'slow',
          usage: { model: 'm', tokens_input: 1, tokens_output: 1, cost: 0 },
          request_id: ctx.requestId,
        };
      });
      const key = newKey();
      const replies = await Promise.all(
        [a, b, a, b].map((replica) =>
          replica.send('POST', GENERATE, { body, headers: keyed(key) }),
        ),
      );
      const originals = replies.filter(
        (r) => r.status === 200 && r.headers.get('idempotent-replayed') === null,
      );
      expect(originals).to.have.length(1);
      for (const reply of replies.filter((r) => r !== originals[0])) {
        if (reply.status === 409) expect(reply.headers.get('retry-after')).to.equal('1');
        else expectReplayOf(reply, originals[0]!);
      }
      expect(a.doubles.content.called('Generate')).to.equal(1);
    });
  });
}
