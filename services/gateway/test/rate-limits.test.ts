import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import { orgWithKey } from './accounts-helpers';
import { startHarness, type Harness } from './harness';

describe('gateway per-key rate limits', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());

  it('limits requests per minute per key, with RateLimit-* headers on every answer', async () => {
    const { key } = await orgWithKey(h, { id: 'rpm', rateLimits: { requestsPerMinute: 3 } });
    for (const remaining of [2, 1, 0]) {
      const reply = await h.send('GET', '/api/v2/models', { key });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('ratelimit-limit')).to.equal('3');
      expect(reply.headers.get('ratelimit-remaining')).to.equal(String(remaining));
      expect(Number(reply.headers.get('ratelimit-reset'))).to.be.within(1, 60);
    }
    const refused = await h.send('GET', '/api/v2/models', { key });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('rate_limited');
    expect(refused.body.request_id).to.equal(refused.requestId);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(refused.headers.get('ratelimit-limit')).to.equal('3');
    expect(refused.headers.get('ratelimit-remaining')).to.equal('0');
  });

  it('counts each key on its own', async () => {
    const { key } = await orgWithKey(h, { id: 'rpm-keys', rateLimits: { requestsPerMinute: 1 } });
    const other = (await h.admin('POST', '/api/v2/admin/organizations/rpm-keys/keys', {})).body
      .key as string;
    expect((await h.send('GET', '/api/v2/models', { key })).status).to.equal(200);
    expect((await h.send('GET', '/api/v2/models', { key })).status).to.equal(429);
    expect((await h.send('GET', '/api/v2/models', { key: other })).status).to.equal(200);
  });

  it('limits estimated tokens per minute on billable calls', async () => {
    const body = { prompt: 'Write a tagline', max_length: 20 };
    const estimate = countTokens(body.prompt) + 20;
    const { key } = await orgWithKey(h, {
      id: 'tpm',
      rateLimits: { tokensPerMinute: 2 * estimate },
    });
    expect((await h.send('POST', '/api/v2/ai/content/generate', { key, body })).status).to.equal(
      200,
    );
    expect((await h.send('POST', '/api/v2/ai/content/generate', { key, body })).status).to.equal(
      200,
    );
    const refused = await h.send('POST', '/api/v2/ai/content/generate', { key, body });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('rate_limited');
    expect(refused.body.error.message).to.include('token');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(
      (await h.send('GET', '/api/v2/models', { key })).status,
      'requests are still allowed',
    ).to.equal(200);
  });
});
