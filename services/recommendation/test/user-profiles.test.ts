import { expect } from 'chai';
import { UserProfiles } from '../src/model/user-profiles';
import { InMemoryInteractionStore } from '../src/store/interactions/memory';

/** An interaction store that counts profile reads and holds each read until released. */
class SlowStore extends InMemoryInteractionStore {
  reads = 0;
  private releases: Array<() => void> = [];

  override async forUser(organization: string, userId: string) {
    this.reads++;
    const result = await super.forUser(organization, userId);
    await new Promise<void>((resolve) => this.releases.push(resolve));
    return result;
  }

  release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

describe('UserProfiles', () => {
  it('reads a user once for the calls in flight meanwhile', async () => {
    const store = new SlowStore();
    await store.append('org', [
      { userId: 'u1', itemId: 'a', type: 'purchase', value: 0, timestamp: 1 },
    ]);
    const profiles = new UserProfiles(store, 0);
    const calls = Promise.all(Array.from({ length: 10 }, () => profiles.get('org', 'u1')));
    await new Promise((resolve) => setImmediate(resolve));
    store.release();
    const results = await calls;
    expect(store.reads).to.equal(1);
    expect(results.every((p) => p.owned.has('a'))).to.equal(true);
  });

  it('does not join or keep a read that an invalidation overtook', async () => {
    const store = new SlowStore();
    const profiles = new UserProfiles(store, 0);
    const before = profiles.get('org', 'u1');
    await new Promise((resolve) => setImmediate(resolve));
    await store.append('org', [
      { userId: 'u1', itemId: 'b', type: 'purchase', value: 0, timestamp: 2 },
    ]);
    profiles.invalidate('org', ['u1']);
    const after = profiles.get('org', 'u1');
    await new Promise((resolve) => setImmediate(resolve));
    store.release();
    expect((await before).known, 'read before the interaction').to.equal(false);
    expect((await after).owned.has('b')).to.equal(true);
    const cached = profiles.get('org', 'u1');
    expect((await cached).owned.has('b'), 'the newer read is the one kept').to.equal(true);
    expect(store.reads).to.equal(2);
  });
});
