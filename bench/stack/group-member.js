'use strict';
/**
 * One consumer group member of bench/stack/takeover.js, in its own process (to be killed with
 * SIGKILL): joins group argv[3] on the usage topic of topic prefix argv[2] (KAFKA_BROKERS and the
 * KAFKA_* group timing from the environment, as a service reads them) and prints a JSON line per
 * join and per event handled: the event's request id and when it was handled.
 */
const path = require('node:path');
const { REPO } = require('./common');
const shared = require(path.join(REPO, 'shared', 'dist', 'src', 'index.js'));

const [prefix, group] = process.argv.slice(2);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const logger = shared.createLogger('member', 'info', {
  write(line) {
    const entry = JSON.parse(line);
    if (entry.msg === 'joined the consumer group')
      print({ joined: Date.now(), joinMs: entry.joinMs, partitions: entry.partitions });
  },
});
const bus = new shared.KafkaEventBus({
  brokers: process.env.KAFKA_BROKERS.split(','),
  clientId: `member-${process.pid}`,
  logger,
  topicPrefix: prefix,
  membership: shared.readKafkaSettings().membership,
});
bus
  .subscribeBatch({
    group,
    topics: [shared.Topics.usage],
    handler: async (events) => {
      const at = Date.now();
      for (const event of events) print({ handled: event.data.requestId, at });
    },
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
