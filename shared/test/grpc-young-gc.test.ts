import { setFlagsFromString, getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { callUnary, createClient } from '../src/grpc/client';
import { protos } from '../src/grpc/protos';
import { startGrpcServer, unary, type RunningGrpcServer } from '../src/grpc/server';
import { silentLogger } from '../src/testing';
import type { RecommendationServiceClient } from '../src/generated/switchyard/recommendation/v1/RecommendationService';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

const ITEMS = Array.from({ length: 10 }, (_, i) => ({
  item_id: `m${i}`,
  score: 0.5,
  reason: 'co_occurrence',
  item: { item_id: `m${i}`, catalog: 'ecommerce', title: `Movie ${i}`, categories: ['Drama'], attributes_json: '{"price":12.5}', available: true, updated_at: '2026-11-24T00:00:00.000Z' },
}));

/**
 * What a finished call leaves to the young-generation GC. grpc-js's per-connection Set of calls in
 * progress kept every call it ever held alive through scavenges (patches/README.md): here about
 * 22 KB per call copied and promoted; with the patch 6-10 KB, what node:http2 keeps per stream.
 */
describe('gRPC: a finished call does not survive young-generation GC', function () {
  this.timeout(60_000);
  let server: RunningGrpcServer;
  let client: RecommendationServiceClient;
  const call = (i: number) =>
    callUnary('recommendation', client.Recommend, client, { user_id: `u${i}`, num_recommendations: 10 }, { organization: 'org_gc', keyId: 'key_1', requestId: `req_${i}` }, 5000);
  /** n calls, 8 in flight, as a loaded gateway makes them. */
  async function calls(n: number): Promise<void> {
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => { while (next < n) await call(next++); }));
  }

  before(async () => {
    const handler = unary(silentLogger(), async (request: { user_id: string }) => ({ user_id: request.user_id, recommendations: ITEMS, request_id: 'r' }));
    const definition = protos.recommendation().RecommendationService.service;
    server = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [{ name: 'test', definition, implementation: { Recommend: handler } }] });
    client = createClient(protos.recommendation().RecommendationService, `127.0.0.1:${server.port}`) as unknown as RecommendationServiceClient;
  });

  after(async () => {
    client.close();
    await server.stop(0);
  });

  it('promotes a few KB per finished call (node:http2 stream bookkeeping), not the call', async () => {
    await calls(1000);
    // A clean old generation (so only what the calls below leave can anchor anything), then a
    // young-generation GC with the connection's tables alive: what anchored later calls before.
    gc({ type: 'major' });
    gc({ type: 'major' });
    await calls(300);
    gc({ type: 'minor' });
    const promotedPerCall: number[] = [];
    for (let window = 0; window < 7; window++) {
      const before = oldSpaceUsed();
      await calls(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc({ type: 'minor' });
      promotedPerCall.push((oldSpaceUsed() - before) / 200);
    }
    const median = promotedPerCall.sort((a, b) => a - b)[3]!;
    expect(median, `bytes promoted per call (windows: ${promotedPerCall.map((b) => Math.round(b)).join(', ')})`).to.be.below(15 * 1024);
  });
});
