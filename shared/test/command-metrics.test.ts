import { expect } from 'chai';
import { commandMetrics } from '../src/adapters/command-metrics';
import { connectMongo } from '../src/adapters/mongo';
import { connectRedis } from '../src/adapters/redis';
import { createRedisSharedState } from '../src/adapters/redis-shared-state';
import { endpointOf, silentLogger, uniqueName } from '../src/testing';

/** The count of one histogram series in commandMetrics (0 when it does not exist). */
async function commandCount(name: string, labels: Record<string, string>): Promise<number> {
  const metric = commandMetrics.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values
    .filter(
      (v) =>
        (v as { metricName?: string }).metricName === `${name}_count` &&
        Object.entries(labels).every(([k, value]) => v.labels[k] === value),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

describe('dependency command metrics (DEPENDENCY_COMMAND_METRICS=true)', function () {
  this.timeout(30_000);
  const previous = process.env.DEPENDENCY_COMMAND_METRICS;
  before(() => {
    process.env.DEPENDENCY_COMMAND_METRICS = 'true';
  });
  after(() => {
    if (previous === undefined) delete process.env.DEPENDENCY_COMMAND_METRICS;
    else process.env.DEPENDENCY_COMMAND_METRICS = previous;
  });

  it('times each Redis command, naming the shared state scripts run by EVALSHA', async function () {
    if (!endpointOf('redis')) this.skip();
    const redis = await connectRedis(endpointOf('redis')!, silentLogger());
    const prefix = `${uniqueName('cm')}:`;
    const state = createRedisSharedState(redis, { prefix });
    try {
      // A script's first run on a connection goes as EVAL, later ones as EVALSHA.
      const reserveCount = async () =>
        (await commandCount('redis_command_duration_seconds', { command: 'eval syReserve' })) +
        (await commandCount('redis_command_duration_seconds', { command: 'evalsha syReserve' }));
      const reserves = await reserveCount();
      const gets = await commandCount('redis_command_duration_seconds', { command: 'get' });
      await state.counters.reserve('quota', 5, 100, 60);
      await state.counters.reserve('quota', 5, 100, 60);
      expect(await state.counters.get('quota')).to.equal(10);
      expect(await reserveCount()).to.equal(reserves + 2);
      expect(await commandCount('redis_command_duration_seconds', { command: 'get' })).to.equal(
        gets + 1,
      );
    } finally {
      await redis.del(`${prefix}quota`);
      await state.close();
      await redis.quit().catch(() => undefined);
    }
  });

  it('times each MongoDB command by command and collection', async function () {
    if (!endpointOf('mongo')) this.skip();
    const database = uniqueName('cm');
    const connection = await connectMongo(endpointOf('mongo')!, database, silentLogger());
    try {
      const labels = { command: 'insert', collection: 'timed' };
      const before = await commandCount('mongodb_command_duration_seconds', labels);
      await connection.db.collection('timed').insertOne({ _id: 'a' } as never);
      await connection.db.collection('timed').insertOne({ _id: 'b' } as never);
      expect(await commandCount('mongodb_command_duration_seconds', labels)).to.equal(before + 2);
    } finally {
      await connection.db.dropDatabase().catch(() => undefined);
      await connection.close();
    }
  });
});
