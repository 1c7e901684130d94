import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { GCProfiler } from 'node:v8';
import { expect } from 'chai';
import { installYoungAsyncResourceBind } from '../src/runtime/async-resource-bind';
import { turnOffAllocationSitePretenuring } from '../src/runtime/pretenuring';

const oldSpaceUsed = (heap: {
  heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[];
}) => heap.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')!.spaceUsedSize;

describe('AsyncResource.prototype.bind without per-function accessors', () => {
  before(() => {
    turnOffAllocationSitePretenuring(); // as every service process does (main())
    installYoungAsyncResourceBind();
  });

  it('runs the function in the resource’s async context, with the caller’s this and arguments', () => {
    const storage = new AsyncLocalStorage<string>();
    const resource = storage.run('request-1', () => new AsyncResource('test'));
    const bound = resource.bind(function (this: unknown, a: number, b: number) {
      return { store: storage.getStore(), self: this, sum: a + b };
    }) as ((this: unknown, a: number, b: number) => unknown) & { asyncResource: AsyncResource };
    const receiver = { name: 'receiver' };
    expect(storage.run('other', () => bound.call(receiver, 2, 3))).to.deep.equal({
      store: 'request-1',
      self: receiver,
      sum: 5,
    });
    expect(bound.length).to.equal(2);
    expect(bound.asyncResource).to.equal(resource);
  });

  it('binds thisArg when given, and refuses what is not a function', () => {
    const self = { n: 1 };
    // Node's bind(fn, thisArg), which @types/node leaves out.
    const bindTo = new AsyncResource('test').bind as unknown as (
      fn: () => unknown,
      thisArg: unknown,
    ) => () => unknown;
    const bound = bindTo.call(
      new AsyncResource('test'),
      function (this: unknown) {
        return this;
      },
      self,
    );
    expect(bound()).to.equal(self);
    expect(() => new AsyncResource('test').bind(42 as never))
      .to.throw(TypeError)
      .with.property('code', 'ERR_INVALID_ARG_TYPE');
  });

  it('leaves nothing for the old generation when the bound functions are dropped', () => {
    const resource = new AsyncResource('test');
    const profiler = new GCProfiler();
    profiler.start();
    let sink: unknown;
    for (let i = 0; i < 200_000; i++) sink = resource.bind(() => i);
    const scavenges = profiler.stop().statistics.filter((gc) => gc.gcType === 'Scavenge');
    const promoted = scavenges.reduce(
      (sum, gc) => sum + Math.max(0, oldSpaceUsed(gc.afterGC) - oldSpaceUsed(gc.beforeGC)),
      0,
    );
    expect(sink).to.be.a('function');
    expect(scavenges.length).to.be.at.least(2);
    // Node 24's own: about 780 bytes per bound function; this one, 0-80 (what else the process does).
    expect(promoted / 200_000, 'bytes promoted per bound function').to.be.below(300);
  });
});
