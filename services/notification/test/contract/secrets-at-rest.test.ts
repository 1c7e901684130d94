import { contractSuite } from '@switchyard/shared/testing';
import { Collections, mongoStores, SecretBox } from '../../src/store';
import { expect } from '../chai';
import { mongoWorld, webhookRecord, type StoreWorld } from '../store-fixtures';

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
    const wrongKey = mongoStores(connection!.db, new SecretBox(Buffer.alloc(32, 1)));
    const error = await wrongKey.webhooks.get('org_a', hook.id).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/does not decrypt/);
    expect(error?.message).to.not.include(hook.secret);
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
    const error = await stores.webhooks.get('org_a', attacker.id).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/does not decrypt/);
  });
});
