import { GCProfiler } from 'node:v8';
import { expect } from 'chai';
import { callUnary, createClient } from '../src/grpc/client';
import { protos } from '../src/grpc/protos';
import { startGrpcServer, unary, type RunningGrpcServer } from '../src/grpc/server';
import { turnOffAllocationSitePretenuring } from '../src/runtime/pretenuring';
import { silentLogger } from '../src/testing';
import type { RecommendationServiceClient } from '../src/generated/switchyard/recommendation/v1/RecommendationService';

const ITEMS = Array.from({ length: 10 }, (_, i) => ({
  item_id: `m${i}`,
  score: 0.5,
  reason: 'co_occurrence',
  item: {
    item_id: `m${i}`,
    catalog: 'ecommerce',
    title: `Movie ${i}`,
    categories: ['Drama'],
    attributes_json: '{"price":12.5}',
    available: true,
    updated_at: '2026-11-24T00:00:00.000Z',
  },
}));
const CALLS = 12_000;

type GcStatistics =
  ReturnType<GCProfiler['stop']> extends infer R
    ? R extends { statistics: (infer S)[] }
      ? S
      : never
    : never;
const oldSpaceUsed = (heap: GcStatistics['beforeGC']) =>
  heap.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')!.spaceUsedSize;

/**
 * What finished calls leave to the young-generation GC, with the gateway's grpc-js client and a
 * service's server in one process (the embedded mesh): the old generation's growth over each
 * scavenge V8 runs by itself under steady load, 8 calls in flight. Each of these kept every
 * finished call alive until the next full GC, and each alone was enough: grpc-js's Set of calls
 * in progress (patched, patches/README.md), Node's HTTP/2 session stream tables
 * (steady-session-tables.ts) and the accessor Node 24 puts on each function its HTTP/2 client
 * binds per request (runtime/async-resource-bind.ts). Measured here: 4.6 KB promoted per call
 * with the last two, 0.9 KB without; before the patch, every call (15.9 KB).
 */
describe('gRPC: finished calls die young', function () {
  this.timeout(120_000);
  let server: RunningGrpcServer;
  let client: RecommendationServiceClient;
  const call = (i: number) =>
    callUnary(
      'recommendation',
      client.Recommend,
      client,
      { user_id: `u${i}`, num_recommendations: 10 },
      { organization: 'org_gc', keyId: 'key_1', requestId: `req_${i}` },
      5000,
    );
  async function calls(n: number): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) await call(next++);
      }),
    );
  }

  before(async () => {
    turnOffAllocationSitePretenuring(); // as every service process does (main())
    const handler = unary(silentLogger(), async (request: { user_id: string }) => ({
      user_id: request.user_id,
      recommendations: ITEMS,
      request_id: 'r',
    }));
    const definition = protos.recommendation().RecommendationService.service;
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [{ name: 'test', definition, implementation: { Recommend: handler } }],
    });
    client = createClient(
      protos.recommendation().RecommendationService,
      `127.0.0.1:${server.port}`,
    ) as unknown as RecommendationServiceClient;
  });

  after(async () => {
    client.close();
    await server.stop(0);
  });

  it('promotes under 2 KB per finished call over the scavenges V8 runs under load', async () => {
    await calls(2_000);
    const profiler = new GCProfiler();
    profiler.start();
    await calls(CALLS);
    const scavenges = profiler.stop().statistics.filter((gc) => gc.gcType === 'Scavenge');
    const promoted = scavenges.reduce(
      (sum, gc) => sum + Math.max(0, oldSpaceUsed(gc.afterGC) - oldSpaceUsed(gc.beforeGC)),
      0,
    );
    expect(scavenges.length, 'scavenges during the calls').to.be.at.least(3);
    expect(
      promoted / CALLS,
      `bytes promoted per call over ${scavenges.length} scavenges`,
    ).to.be.below(2048);
  });
});
