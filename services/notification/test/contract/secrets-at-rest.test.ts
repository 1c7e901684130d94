import { contractSuite } from '@switchyard/shared/testing';
import { Collections, mongoStores, SecretBox } from '../../src/store';
import { expect } from '../chai';
import { mongoWorld, TEST_ENCRYPTION_KEY, webhookRecord, type StoreWorld } from '../store-fixtures';

contractSuite<StoreWorld>('secrets at rest', { mongo: mongoWorld }, (world) => {
  it('stores webhook and signing secrets encrypted, readable only with the key', async () => {
    const { stores, connection } = world();
    const hook = webhookRecord({
      previousSecret: `whsec_${Buffer.alloc(32, 8).toString('base64')}`,
    });
    await stores.webhooks.create(hook);
    const orgSecret = await stores.signingSecrets.getOrCreate('org_a', () => ({
      organization: 'org_a',
      secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
      createdAt: new Date().toISOString(),
    }));
    const raw = JSON.stringify([
      await connection!.db.collection(Collections.webhooks).find().toArray(),
      await connection!.db.collection(Collections.signingSecrets).find().toArray(),
    ]);
    for (const secret of [hook.secret, hook.previousSecret!, orgSecret.secret]) {
      expect(raw).to.not.include(secret);
      expect(raw).to.not.include(secret.slice('whsec_'.length));
    }
    // Another key reads the record, but not its secrets: it is marked unusable (never thrown,
    // so one such record cannot fail the organization's other webhooks).
    const wrongKey = mongoStores(connection!.db, new SecretBox(Buffer.alloc(32, 1)));
    const unreadable = (await wrongKey.webhooks.get('org_a', hook.id))!;
    expect(unreadable.secret).to.equal('');
    expect(unreadable.previousSecret).to.equal(undefined);
    expect(unreadable.unusable).to.match(/does not decrypt/);
    expect(unreadable.unusable).to.not.include(hook.secret);
    expect(await wrongKey.webhooks.list('org_a')).to.have.length(1);
    const orgError = await wrongKey.signingSecrets.get('org_a').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(orgError?.message).to.match(/does not decrypt/);
    // With the old key in the ring (a rotation), both open again.
    const ring = mongoStores(
      connection!.db,
      new SecretBox(Buffer.alloc(32, 1), [TEST_ENCRYPTION_KEY]),
    );
    expect((await ring.webhooks.get('org_a', hook.id))!.secret).to.equal(hook.secret);
    expect((await ring.signingSecrets.get('org_a'))!.secret).to.equal(orgSecret.secret);
  });

  it('does not open a sealed secret copied onto another record', async () => {
    const { stores, connection } = world();
    const victim = webhookRecord();
    const attacker = webhookRecord();
    await stores.webhooks.create(victim);
    await stores.webhooks.create(attacker);
    const collection = connection!.db.collection(Collections.webhooks);
    const sealed = (await collection.findOne({ id: victim.id }))!.secret as string;
    await collection.updateOne({ id: attacker.id }, { $set: { secret: sealed } });
    const read = (await stores.webhooks.get('org_a', attacker.id))!;
    expect(read.secret).to.equal('');
    expect(read.unusable).to.match(/does not decrypt/);
  });
});
