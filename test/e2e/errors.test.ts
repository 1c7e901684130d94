import { expect } from 'chai';
import { api } from '../support/http';

function expectErrorBody(res: { body: any; headers: Headers }, code: string): void {
  expect(res.body).to.have.all.keys('error', 'request_id');
  expect(res.body.error).to.include.keys('code', 'message', 'details');
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.details).to.be.an('array');
  expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
}

describe('e2e: errors and authentication', () => {
  it('401 without a key, with a malformed header, or an unknown key', async () => {
    for (const options of [
      { key: null },
      { authorization: 'Bearer abc' },
      { authorization: 'X-API-Key' },
      { key: 'sk_unknown' },
    ]) {
      const res = await api('/api/v2/ai/content/generate', { ...options, body: { prompt: 'x' } });
      expect(res.status, JSON.stringify(options)).to.equal(401);
      expectErrorBody(res, 'unauthorized');
    }
  });

  it('400 for invalid JSON, naming no secrets', async () => {
    const res = await api('/api/v2/ai/content/generate', { rawBody: '{"prompt": ' });
    expect(res.status).to.equal(400);
    expectErrorBody(res, 'invalid_request');
  });

  it('400 naming the field for missing, wrong-type, unknown and out-of-range fields', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, '/prompt'],
      [{ prompt: 'x', max_length: 'ten' }, '/max_length'],
      [{ prompt: 'x', max_length: 0 }, '/max_length'],
      [{ prompt: 'x', colour: 'red' }, '/colour'],
      [{ prompt: 42 }, '/prompt'],
    ];
    for (const [body, field] of cases) {
      const res = await api('/api/v2/ai/content/generate', { body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expectErrorBody(res, 'invalid_request');
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).to.include(field);
    }
  });

  it('400 when transform misses the field its action needs', async () => {
    const res = await api('/api/v2/ai/content/transform', {
      body: { action: 'reformat', text: 'a b c' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include('/format');
  });

  it('415 for a body that is not application/json', async () => {
    const res = await api('/api/v2/ai/content/generate', {
      rawBody: 'prompt=x',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).to.equal(415);
    expectErrorBody(res, 'unsupported_media_type');
  });

  it('413 for a body over the limit', async () => {
    const res = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(res.status).to.equal(413);
    expectErrorBody(res, 'payload_too_large');
  });

  it('404 with the error body for an unknown path', async () => {
    const res = await api('/api/v2/nothing-here');
    expect(res.status).to.equal(404);
    expectErrorBody(res, 'not_found');
  });
});
