import { contractSuite } from '@switchyard/shared/testing';
import type { OrgSigningSecret } from '../../src/model';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';

function secretOf(organization: string, fill: number): OrgSigningSecret {
  return {
    organization,
    secret: `whsec_${Buffer.alloc(32, fill).toString('base64')}`,
    createdAt: new Date().toISOString(),
  };
}

contractSuite<StoreWorld>('SigningSecretStore contract', storeBackends, (world) => {
  it('creates a secret once; later calls return the stored one', async () => {
    const { signingSecrets } = world().stores;
    const first = await signingSecrets.getOrCreate('org_a', () => secretOf('org_a', 1));
    const second = await signingSecrets.getOrCreate('org_a', () => secretOf('org_a', 2));
    expect(second.secret).to.equal(first.secret);
    expect(first.secret).to.equal(secretOf('org_a', 1).secret);
  });

  it('agrees on one secret when two instances create it concurrently', async () => {
    const other = await world().reopen();
    const results = await Promise.all([
      world().stores.signingSecrets.getOrCreate('org_a', () => secretOf('org_a', 1)),
      other.signingSecrets.getOrCreate('org_a', () => secretOf('org_a', 2)),
    ]);
    expect(results[0].secret).to.equal(results[1].secret);
    expect((await other.signingSecrets.get('org_a'))!.secret).to.equal(results[0].secret);
  });

  it('replaces the secret on put (rotation) and keeps organizations apart', async () => {
    const { signingSecrets } = world().stores;
    const original = await signingSecrets.getOrCreate('org_a', () => secretOf('org_a', 1));
    const rotated: OrgSigningSecret = {
      ...secretOf('org_a', 4),
      previousSecret: original.secret,
      previousSecretExpiresAt: '2030-01-01T00:00:00.000Z',
    };
    await signingSecrets.put(rotated);
    expect(await signingSecrets.get('org_a')).to.deep.equal(rotated);
    expect(await signingSecrets.get('org_b')).to.equal(undefined);
    const other = await signingSecrets.getOrCreate('org_b', () => secretOf('org_b', 5));
    expect(other.secret).to.not.equal(rotated.secret);
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    const created = await world().stores.signingSecrets.getOrCreate('org_a', () =>
      secretOf('org_a', 6),
    );
    const reopened = await world().reopen();
    expect(await reopened.signingSecrets.get('org_a')).to.deep.equal(created);
  });
});
