import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import { unary, type CallControl } from '../src/grpc/server';
import { silentLogger } from '../src/testing';

/** What grpc-js hands a unary handler: it emits 'cancelled' when the call's stream closes, answered or not. */
function fakeCall(): ServerUnaryCall<object, object> & EventEmitter {
  const call = Object.assign(new EventEmitter(), {
    request: {},
    metadata: new Metadata(),
    cancelled: false,
    getDeadline: () => Infinity,
    getPath: () => '/test.v1.Test/Call',
  });
  return call as unknown as ServerUnaryCall<object, object> & EventEmitter;
}

describe('gRPC unary adapter: cancellation', () => {
  it("aborts the handler's signal when the caller cancels while it runs", async () => {
    const call = fakeCall();
    let control: CallControl | undefined;
    let finish: () => void = () => undefined;
    const answered = new Promise((resolve) =>
      unary(silentLogger(), (_request, _context, c) => {
        control = c;
        return new Promise<object>((done) => (finish = () => done({})));
      })(call, resolve),
    );
    call.emit('cancelled');
    expect(control!.signal.aborted).to.equal(true);
    finish();
    await answered;
  });

  it('does not abort (nor keep listening) once the handler has answered: the stream closing is not a cancel', async () => {
    const call = fakeCall();
    let control: CallControl | undefined;
    await new Promise((resolve) =>
      unary(silentLogger(), async (_request, _context, c) => {
        control = c;
        return {};
      })(call, resolve),
    );
    expect(call.listenerCount('cancelled')).to.equal(0);
    call.emit('cancelled');
    expect(control!.signal.aborted).to.equal(false);
  });
});
