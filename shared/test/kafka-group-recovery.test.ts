import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect } from 'chai';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import type { GroupMembership } from '../src/adapters/kafka-settings';
import type { AnyEvent } from '../src/events/envelope';
import { Topics } from '../src/events/topics';
import { endpointOf, silentLogger, uniqueName, waitFor } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

const FIXTURE = join(__dirname, 'fixtures', 'group-member.js');

/**
 * A member killed with SIGKILL never leaves its group. Its replacement must get the partitions
 * when the rebalance it starts times out (KAFKA_REBALANCE_TIMEOUT_MS), not when the dead member's
 * session does: the session here is long enough that waiting for it would fail the test.
 */
describe('Kafka consumer group: a member restarted after kill -9', function () {
  this.timeout(90_000);
  const membership: GroupMembership = {
    sessionTimeoutMs: 45_000,
    rebalanceTimeoutMs: 3_000,
    heartbeatIntervalMs: 1_000,
  };

  before(function () {
    if (!endpointOf('kafka')) this.skip();
  });

  it('consumes the group’s events at the rebalance, before the dead member’s session expires', async () => {
    const brokers = endpointOf('kafka')!;
    const prefix = `${uniqueName('rejoin')}.`;
    const group = uniqueName('group');
    const member = spawn(process.execPath, [
      FIXTURE,
      brokers,
      prefix,
      group,
      JSON.stringify(membership),
    ]);
    let output = '';
    member.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes('joined'), 30_000);
    member.kill('SIGKILL');
    await once(member, 'exit');
    const killedAt = Date.now();

    const bus = new KafkaEventBus({
      brokers: brokers.split(','),
      clientId: uniqueName('replacement'),
      logger: silentLogger(),
      topicPrefix: prefix,
      membership,
    });
    try {
      const received: AnyEvent[] = [];
      await bus.subscribeBatch({
        group,
        topics: [Topics.usage],
        handler: async (events) => void received.push(...events),
      });
      const event = usageEvent(1);
      await bus.publish(event);
      await waitFor(() => received.some((e) => e.id === event.id), 30_000);
      // Joining waited for the rebalance, not for the dead member's 45 s session to run out.
      expect(Date.now() - killedAt).to.be.below(30_000);
    } finally {
      await bus.close();
    }
  });
});
