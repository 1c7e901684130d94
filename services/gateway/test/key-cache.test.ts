import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { orgWithKey } from './accounts-helpers';
import { startHarness, type Harness } from './harness';

/** Two replicas sharing the key store, each with its own lookup cache (TTL 300 ms). */
describe('gateway key cache across replicas', () => {
  const TTL_MS = 300;
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
      2000,
      25,
    );
    expect(Date.now() - revokedAt).to.be.at.most(TTL_MS + 200);
  });
});
