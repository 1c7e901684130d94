import { expect } from 'chai';
import { DependencyUnavailableError } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import { orgWithKey } from './accounts-helpers';
import { startHarness, type Harness } from './harness';

/**
 * Two replicas sharing the key store, each with its own lookup cache. The TTL is long enough that
 * b still holds the key when a loaded machine gets to the check, the bound loose for the same reason.
 */
describe('gateway key cache across replicas', () => {
  const TTL_MS = 1500;
  let a: Harness;
  let b: Harness;
  before(async () => {
    a = await startHarness({ keyCacheTtlMs: TTL_MS });
    b = await startHarness({
      keyCacheTtlMs: TTL_MS,
      doubles: a.doubles,
      apiKeys: a.apiKeys,
      organizations: a.organizations,
      sharedState: a.sharedState,
    });
  });
  after(async () => {
    await b.stop();
    await a.stop();
  });

  it('a key revoked on one replica gets 401 there at once and on the other within the TTL', async () => {
    const { key, keyId } = await orgWithKey(a, { id: 'cached' });
    expect((await b.send('GET', '/api/v2/models', { key })).status).to.equal(200); // b caches the key
    expect((await a.send('GET', '/api/v2/models', { key })).status).to.equal(200);
    const revokedAt = Date.now();
    expect((await a.admin('POST', `/api/v2/admin/keys/${keyId}/revoke`, {})).status).to.equal(200);
    expect((await a.send('GET', '/api/v2/models', { key })).status).to.equal(401);
    expect((await b.send('GET', '/api/v2/models', { key })).status, 'still cached on b').to.equal(
      200,
    );
    await waitFor(
      async () => (await b.send('GET', '/api/v2/models', { key })).status === 401,
      2 * TTL_MS,
      25,
    );
    expect(Date.now() - revokedAt).to.be.at.most(2 * TTL_MS);
  });
});

describe('gateway key and organization caches during a store outage', () => {
  it('keep serving a key (and its organization) seen before while the store is unreachable; an unseen key gets 503', async () => {
    const h = await startHarness({ keyCacheTtlMs: 100 });
    try {
      const { key } = await orgWithKey(h, { id: 'outage-org' });
      expect((await h.send('GET', '/api/v2/models', { key })).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 150)); // the cached entries expire
      const outage = () => Promise.reject(new DependencyUnavailableError('mongodb'));
      const findByHash = h.apiKeys.findByHash.bind(h.apiKeys);
      const get = h.organizations.get.bind(h.organizations);
      h.apiKeys.findByHash = outage;
      h.organizations.get = outage;
      try {
        expect((await h.send('GET', '/api/v2/models', { key })).status).to.equal(200);
        const unseen = await h.send('GET', '/api/v2/models', { key: `sk_${'n'.repeat(30)}` });
        expect(unseen.status).to.equal(503);
        expect(unseen.headers.get('retry-after')).to.equal('1');
      } finally {
        h.apiKeys.findByHash = findByHash;
        h.organizations.get = get;
      }
    } finally {
      await h.stop();
    }
  });
});
