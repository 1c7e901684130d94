import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { endpointOf, uniqueName } from '../src/testing';

const FIXTURE = join(__dirname, 'fixtures', 'idle-kafka-publisher.js');

/**
 * kafkajs 2.2.4 re-armed a timer after every broker response with a negative delay when nothing
 * was pending: Node ran it every 1 ms for as long as the connection lived and warned
 * (TimeoutNegativeWarning). patches/kafkajs+2.2.4.patch ends that loop; this fails without it.
 */
describe('Kafka: an idle connection sets no timer', function () {
  this.timeout(60_000);

  before(function () {
    if (!endpointOf('kafka')) this.skip();
  });

  it('publishes, then idles without a negative timer (a 1 ms polling loop)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      FIXTURE,
      endpointOf('kafka')!,
      `${uniqueName('idle')}.`,
    ]);
    const { negativeTimers, idleCpuMs } = JSON.parse(stdout) as {
      negativeTimers: number;
      idleCpuMs: number;
    };
    console.log(`      idle second after a publish: ${idleCpuMs.toFixed(1)} ms CPU`);
    expect(negativeTimers).to.equal(0);
  });
});
