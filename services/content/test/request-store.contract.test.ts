import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { contractSuite } from '@switchyard/shared/testing';
import type { RequestOutcome } from '../src/store';
import { processingRecord, requestStoreFixtures, type RequestStoreBackend } from './store-fixtures';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const completed = (result = 'done'): RequestOutcome => ({
  status: 'completed',
  result,
  totalTokens: 12,
  completedAt: '2026-01-01T00:01:00.000Z',
});

contractSuite<RequestStoreBackend>('RequestStore', requestStoreFixtures, (backend) => {
  describe('records', () => {
    it('stores a request and leases it to its creator while processing', async () => {
      const store = await backend().open({ owner: 'replica_a', leaseMs: 60_000 });
      const record = processingRecord();
      const before = Date.now();
      await store.create(record);
      const stored = await store.get('org_a', record.requestId);
      const { lease, ...rest } = stored!;
      expect(rest).to.deep.equal(record);
      expect(lease?.owner).to.equal('replica_a');
      expect(lease?.expiresAt).to.be.within(before + 60_000, Date.now() + 60_000);
    });

    it('keeps organizations apart: another organization neither sees the request nor clashes with its id', async () => {
      const store = await backend().open();
      const record = processingRecord();
      await store.create(record);
      expect(await store.get('org_b', record.requestId)).to.equal(undefined);
      await store.create({ ...record, organization: 'org_b', keyId: 'key_b' });
      expect((await store.get('org_b', record.requestId))?.keyId).to.equal('key_b');
      expect((await store.get('org_a', record.requestId))?.keyId).to.equal('key_1');
    });

    it('rejects a second request with the same identity as a conflict', async () => {
      const store = await backend().open();
      const record = processingRecord();
      await store.create(record);
      const error = await store.create({ ...record, keyId: 'key_2' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).code).to.equal('conflict');
      expect((await store.get('org_a', record.requestId))?.keyId).to.equal('key_1');
    });

    it('finishes a processing request once, clearing its lease', async () => {
      const store = await backend().open();
      const ok = processingRecord();
      const bad = processingRecord();
      await store.create(ok);
      await store.create(bad);
      expect(await store.finish('org_a', ok.requestId, completed('first'))).to.equal(true);
      expect(await store.finish('org_a', ok.requestId, completed('second'))).to.equal(false);
      expect(await store.finish('org_b', bad.requestId, completed())).to.equal(false);
      const failure: RequestOutcome = {
        status: 'failed',
        error: { code: 'upstream_error', message: 'model down' },
        totalTokens: 3,
        completedAt: '2026-01-01T00:02:00.000Z',
      };
      expect(await store.finish('org_a', bad.requestId, failure)).to.equal(true);

      const done = await store.get('org_a', ok.requestId);
      expect(done).to.deep.include({
        status: 'completed',
        result: 'first',
        totalTokens: 12,
        completedAt: '2026-01-01T00:01:00.000Z',
      });
      expect(done?.lease).to.equal(undefined);
      const failed = await store.get('org_a', bad.requestId);
      expect(failed).to.deep.include({
        status: 'failed',
        result: '',
        totalTokens: 3,
        error: { code: 'upstream_error', message: 'model down' },
      });
      expect(await store.finish('org_a', 'req_unknown', completed())).to.equal(false);
    });

    it('lists processing requests oldest first', async () => {
      const store = await backend().open();
      const [first, second, third] = [processingRecord(), processingRecord(), processingRecord()];
      await store.create(third!);
      await store.create(first!);
      await store.create(second!);
      await store.finish('org_a', second!.requestId, completed());
      expect((await store.listProcessing()).map((r) => r.requestId)).to.deep.equal([
        first!.requestId,
        third!.requestId,
      ]);
      expect(await store.listProcessing(1)).to.have.length(1);
    });

    it('shows the state to a second store instance on the same data (a restart)', async () => {
      const first = await backend().open({ owner: 'replica_a' });
      const record = processingRecord();
      await first.create(record);
      const restarted = await backend().open({ owner: 'replica_a' });
      expect((await restarted.get('org_a', record.requestId))?.input).to.deep.equal(record.input);
      expect(
        await restarted.finish('org_a', record.requestId, completed('after restart')),
      ).to.equal(true);
      expect((await first.get('org_a', record.requestId))?.result).to.equal('after restart');
    });
  });

  describe('claims and leases', () => {
    it('does not let another replica claim a request whose lease is alive', async () => {
      const a = await backend().open({ leaseMs: 60_000 });
      const b = await backend().open({ leaseMs: 60_000 });
      await a.create(processingRecord());
      expect(await b.claimNext()).to.equal(undefined);
      expect(await b.claimNext({ includeOwn: true })).to.equal(undefined);
    });

    it('lets another replica take over an expired lease; the old holder then loses it', async () => {
      const a = await backend().open({ owner: 'replica_a', leaseMs: 100 });
      const b = await backend().open({ owner: 'replica_b', leaseMs: 60_000 });
      const record = processingRecord();
      await a.create(record);
      await sleep(150);
      const claimed = await b.claimNext();
      expect(claimed?.requestId).to.equal(record.requestId);
      expect(claimed?.lease?.owner).to.equal('replica_b');
      expect(await b.claimNext()).to.equal(undefined);
      expect(await a.renewLeases()).to.equal(0);
      expect((await a.get('org_a', record.requestId))?.lease?.owner).to.equal('replica_b');
    });

    it('keeps a renewed lease alive past its first expiry', async () => {
      const a = await backend().open({ leaseMs: 300 });
      const b = await backend().open();
      await a.create(processingRecord());
      await sleep(200);
      expect(await a.renewLeases()).to.equal(1);
      await sleep(200);
      expect(await b.claimNext()).to.equal(undefined);
    });

    it('lets a restarted replica (same owner) take back its own requests at once, but never re-claims what it holds', async () => {
      const before = await backend().open({ owner: 'replica_a', leaseMs: 60_000 });
      const record = processingRecord();
      await before.create(record);
      expect(await before.claimNext({ includeOwn: true })).to.equal(undefined);

      const after = await backend().open({ owner: 'replica_a', leaseMs: 60_000 });
      expect(await after.claimNext()).to.equal(undefined);
      expect((await after.claimNext({ includeOwn: true }))?.requestId).to.equal(record.requestId);
      expect(await after.claimNext({ includeOwn: true })).to.equal(undefined);
      expect(await after.renewLeases()).to.equal(1);
    });

    it('does not claim finished requests and drops them from the held leases', async () => {
      const a = await backend().open({ owner: 'replica_a', leaseMs: 100 });
      const record = processingRecord();
      await a.create(record);
      await a.finish('org_a', record.requestId, completed());
      await sleep(150);
      expect(await (await backend().open()).claimNext()).to.equal(undefined);
      expect(await a.renewLeases()).to.equal(0);
    });

    it('hands every expired request to exactly one of two racing replicas', async () => {
      const dead = await backend().open({ leaseMs: 50 });
      const ids = [];
      for (let i = 0; i < 8; i++) {
        const record = processingRecord({ organization: i % 2 ? 'org_a' : 'org_b' });
        ids.push(record.requestId);
        await dead.create(record);
      }
      await sleep(100);
      const a = await backend().open();
      const b = await backend().open();
      const drain = async (store: typeof a) => {
        const claimed: string[] = [];
        for (let record = await store.claimNext(); record; record = await store.claimNext())
          claimed.push(record.requestId);
        return claimed;
      };
      const [byA, byB] = await Promise.all([drain(a), drain(b)]);
      expect([...byA, ...byB].sort()).to.deep.equal([...ids].sort());
    });
  });
});
