import { expect } from 'chai';
import { MongoServerError } from 'mongodb';
import { DependencyUnavailableError, outageOf } from '../src/resilience/dependencies';

describe('MongoDB outage classification', () => {
  it('calls a server shutting down or not primary an outage, and a refused command not', () => {
    const answer = (code: number) => new MongoServerError({ message: 'x', code, ok: 0 });
    expect(outageOf(answer(91)), 'ShutdownInProgress').to.equal('mongodb');
    expect(outageOf(answer(11600)), 'InterruptedAtShutdown').to.equal('mongodb');
    expect(outageOf(answer(10107)), 'NotWritablePrimary').to.equal('mongodb');
    expect(outageOf(answer(11000)), 'duplicate key').to.equal(undefined);
    expect(outageOf(answer(2)), 'BadValue').to.equal(undefined);
  });

  it('calls an error caused by an outage an outage (what failed because MongoDB was down)', () => {
    const wrapped = (cause: unknown) => new Error('usage could not be recorded', { cause });
    expect(outageOf(wrapped(new MongoServerError({ message: 'x', code: 91, ok: 0 })))).to.equal(
      'mongodb',
    );
    expect(outageOf(wrapped(wrapped(new DependencyUnavailableError('kafka'))))).to.equal('kafka');
    expect(outageOf(wrapped(new MongoServerError({ message: 'x', code: 11000, ok: 0 })))).to.equal(
      undefined,
    );
    expect(outageOf(wrapped('a string'))).to.equal(undefined);
  });
});
