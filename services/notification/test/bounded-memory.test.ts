import { InMemoryDeliveryStore } from '../src/store/deliveries/memory';
import { InMemoryUsageLedgerStore } from '../src/store/usage-ledger/memory';
import { expect } from './chai';
import { deliveryRecord } from './store-fixtures';

describe('notification in-memory stores are bounded (issue 24, item 5)', () => {
  it('drops the deliveries that finished longest ago beyond the bound, never a pending one', async () => {
    const store = new InMemoryDeliveryStore(3);
    const pending = deliveryRecord({ eventId: 'evt_pending' });
    await store.insert([pending]);
    const finished = [];
    for (let i = 0; i < 3; i++) {
      const delivery = deliveryRecord({ eventId: `evt_${i}` });
      await store.insert([delivery]);
      await store.recordAttempts([
        {
          organization: 'org_a',
          id: delivery.id,
          result: {
            attempt: {
              attemptedAt: '',
              statusCode: 200,
              durationMs: 1,
              responseBody: '',
              error: '',
            },
            status: 'succeeded',
            url: delivery.url,
          },
        },
      ]);
      finished.push(delivery);
    }
    expect(await store.get('org_a', pending.id)).to.include({ status: 'pending' });
    expect(await store.get('org_a', finished[0]!.id), 'finished first, dropped first').to.equal(
      undefined,
    );
    expect(await store.get('org_a', finished[2]!.id)).to.include({ status: 'succeeded' });
    expect(await store.list('org_a', { limit: 10 })).to.have.length(3);
    expect((await store.pending('', 10)).map((d) => d.id)).to.deep.equal([pending.id]);
  });

  it('remembers a bounded window of ledger event ids (the totals keep counting)', async () => {
    const ledger = new InMemoryUsageLedgerStore(1000, 2);
    const entry = (eventId: string) => ({ eventId }) as Parameters<typeof ledger.append>[1][number];
    await ledger.append('b1', [entry('e1'), entry('e2')]);
    await ledger.append('b2', [entry('e3')]);
    expect([...(await ledger.owners(['e1', 'e2', 'e3'])).keys()]).to.deep.equal(['e2', 'e3']);
    expect(await ledger.append('b3', [entry('e3')]), 'a recent id is known').to.deep.equal(['e3']);
  });
});
