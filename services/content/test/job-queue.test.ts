import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { JobQueue } from '../src/jobs/job-queue';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('job queue', () => {
  it('runs at most `concurrency` jobs at once and all of them eventually', async () => {
    const queue = new JobQueue(2, silentLogger());
    let running = 0;
    let peak = 0;
    let done = 0;
    for (let i = 0; i < 6; i++) {
      queue.enqueue(async () => {
        running++;
        peak = Math.max(peak, running);
        await tick(10);
        running--;
        done++;
      });
    }
    await queue.stop();
    expect(peak).to.equal(2);
    expect(done).to.equal(6);
  });

  it('stop() waits for accepted jobs, then refuses new ones; a failing job does not stop the queue', async () => {
    const queue = new JobQueue(1, silentLogger());
    let finished = false;
    queue.enqueue(async () => {
      throw new Error('boom');
    });
    queue.enqueue(async () => {
      await tick(20);
      finished = true;
    });
    await queue.stop();
    expect(finished).to.equal(true);
    expect(() => queue.enqueue(async () => undefined))
      .to.throw(AppError)
      .with.property('code', 'unavailable');
  });
});
