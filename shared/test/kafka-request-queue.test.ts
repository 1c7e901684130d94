import { expect } from 'chai';
import { kafkaRequestQueue } from '../src/adapters/kafka-request-queue-fix';

type Queue = {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  scheduleCheckPendingRequests(): void;
};

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function queue(): Queue {
  const RequestQueue = kafkaRequestQueue as unknown as new (options: object) => Queue;
  return new RequestQueue({
    clientId: 'test',
    broker: 'localhost:9092',
    logger: silent,
    maxInFlightRequests: null,
    requestTimeout: 30000,
  });
}

describe('kafkajs request queue (idle re-check fix, kafkajs#1751)', () => {
  it('sets no timer when nothing is pending and nothing is throttled (it was a negative delay: a 1 ms loop)', () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const q = queue();
      q.scheduleCheckPendingRequests();
      expect(q.throttleCheckTimeoutId).to.equal(null);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).to.not.include('TimeoutNegativeWarning');
  });

  it('still schedules a check for a pending request, at the end of a throttle or soon', () => {
    const q = queue();
    q.pending.push({});
    q.throttledUntil = Date.now() + 50;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).to.not.equal(null);
    clearTimeout(q.throttleCheckTimeoutId!);
  });
});
