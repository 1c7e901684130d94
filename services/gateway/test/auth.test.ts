import { expect } from 'chai';
import { issueApiKey } from '../src/auth/api-keys';
import { startHarness, resetDoubles, type Harness } from './harness';

describe('gateway authentication', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const generate = { prompt: 'Write a tagline' };

  function expectUnauthorized(reply: {
    status: number;
    body: { error: { code: string }; request_id: string };
    requestId: string;
  }) {
    expect(reply.status).to.equal(401);
    expect(reply.body.error.code).to.equal('unauthorized');
    expect(reply.body.request_id).to.equal(reply.requestId);
  }

  it('rejects a request without Authorization and never reaches the service', async () => {
    const reply = await h.send('POST', '/api/v2/ai/content/generate', {
      body: generate,
      auth: false,
    });
    expectUnauthorized(reply);
    expect(reply.headers.get('www-authenticate')).to.equal('X-API-Key');
    expect(h.doubles.content.calls).to.have.length(0);
  });

  for (const [label, value] of [
    ['a Bearer token', 'Bearer KEY'],
    ['the bare key', 'KEY'],
    ['two spaces', 'X-API-Key  KEY'],
    ['a trailing word', 'X-API-Key KEY extra'],
    ['X-API-Key: as header syntax', 'X-API-Key: KEY'],
    ['a key without sk_', 'X-API-Key abcdefghijklmnopqrstuvwxyz'],
  ]) {
    it(`rejects a malformed header: ${label}`, async () => {
      const reply = await h.send('POST', '/api/v2/ai/content/generate', {
        body: generate,
        auth: false,
        headers: { authorization: value.replace('KEY', h.key) },
      });
      expectUnauthorized(reply);
      expect(reply.body.error.message).to.match(/malformed/);
    });
  }

  it('rejects an unknown key of the right form', async () => {
    const reply = await h.send('GET', '/api/v2/models', {
      auth: false,
      headers: { authorization: 'X-API-Key sk_unknownunknownunknown123' },
    });
    expectUnauthorized(reply);
    expect(reply.body.error.message).to.match(/unknown/);
  });

  it('rejects a revoked key', async () => {
    const { key, record } = await issueApiKey(h.apiKeys, 'org_other');
    expect(
      (
        await h.send('GET', '/api/v2/models', {
          auth: false,
          headers: { authorization: `X-API-Key ${key}` },
        })
      ).status,
    ).to.equal(200);
    await h.apiKeys.revoke(record.keyId, new Date().toISOString());
    expectUnauthorized(
      await h.send('GET', '/api/v2/models', {
        auth: false,
        headers: { authorization: `X-API-Key ${key}` },
      }),
    );
  });

  it('accepts "X-API-Key <key>" and passes organization, key id and request id to the service', async () => {
    const reply = await h.send('POST', '/api/v2/ai/content/generate', { body: generate });
    expect(reply.status).to.equal(200);
    expect(h.doubles.content.last('Generate').context).to.deep.equal({
      organization: 'org_test',
      keyId: h.record.keyId,
      requestId: reply.requestId,
    });
  });

  it('authenticates before reading the body (401, not 415 or 400)', async () => {
    const reply = await h.send('POST', '/api/v2/ai/content/generate', {
      raw: '{not json',
      auth: false,
      headers: { 'content-type': 'text/plain' },
    });
    expectUnauthorized(reply);
  });

  it('leaves /healthz, /readyz, /metrics and /openapi.json open', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
      const reply = await h.send('GET', path, { auth: false });
      expect(reply.status, path).to.equal(200);
    }
  });

  it('stores only hashes of keys', async () => {
    const { key, record } = await issueApiKey(h.apiKeys, 'org_x');
    expect(key).to.match(/^sk_[A-Za-z0-9_-]{40,}$/);
    expect(record.hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).to.not.include(key.slice(3));
  });
});
