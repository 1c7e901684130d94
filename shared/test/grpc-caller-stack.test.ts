import { expect } from 'chai';
import { withoutCallerStack } from '../src/grpc/without-caller-stack';

describe('gRPC: calls start without grpc-js capturing the caller stack', () => {
  it('captures no frames while a call starts and restores the limit afterwards', () => {
    const before = Error.stackTraceLimit;
    const captured = withoutCallerStack(() => new Error('started').stack ?? '');
    expect(captured.split('\n').filter((line) => line.trim().startsWith('at '))).to.have.length(0);
    expect(Error.stackTraceLimit).to.equal(before);
    expect(new Error('later').stack).to.match(/\n\s+at /);
  });

  it('restores the limit when starting the call throws', () => {
    const before = Error.stackTraceLimit;
    expect(() =>
      withoutCallerStack(() => {
        throw new TypeError('bad argument');
      }),
    ).to.throw(TypeError, 'bad argument');
    expect(Error.stackTraceLimit).to.equal(before);
  });
});
