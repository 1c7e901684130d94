/**
 * kafkajs 2.2.4 (its last release) re-arms a timer after every broker response even when no
 * request is pending and none is throttled, with a delay of `throttledUntil - Date.now()`, which is
 * -1 - now by default: Node 24 prints TimeoutNegativeWarning, clamps the delay to 1 ms, and the
 * timer fires, finds nothing, and re-arms - a 1 ms polling loop per broker connection, for nothing.
 * (https://github.com/tulios/kafkajs/issues/1751 and #1704, fixes unmerged.) Patched here: with
 * nothing pending and no throttle in force there is nothing to check later - a request that gets
 * queued schedules its own check (RequestQueue.push) - so no timer is set.
 */
interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(): void;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as {
  prototype: RequestQueueLike & { idleCheckSkipped?: true };
};

const proto = RequestQueue.prototype;
if (!proto.idleCheckSkipped) {
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function (this: RequestQueueLike): void {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  proto.idleCheckSkipped = true;
}

export const kafkaRequestQueue = RequestQueue;
