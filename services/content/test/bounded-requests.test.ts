import { expect } from 'chai';
import { InMemoryRequestStore } from '../src/store/requests/memory';
import { processingRecord } from './store-fixtures';

describe('in-memory request store is bounded (issue 24, item 5)', () => {
  it('drops the oldest finished requests beyond the bound, never one still processing', async () => {
    const store = new InMemoryRequestStore(undefined, undefined, 2);
    const processing = processingRecord();
    await store.create(processing);
    const done = processingRecord();
    await store.create(done);
    await store.finish('org_a', done.requestId, {
      status: 'completed',
      result: 'ok',
      totalTokens: 1,
      completedAt: new Date().toISOString(),
    });
    const newer = processingRecord();
    await store.create(newer);
    expect(await store.get('org_a', processing.requestId)).to.include({ status: 'processing' });
    expect(await store.get('org_a', done.requestId)).to.equal(undefined);
    expect(await store.get('org_a', newer.requestId)).to.include({ status: 'processing' });
  });
});
