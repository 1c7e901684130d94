import { resultEventId } from '@switchyard/shared';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';

/**
 * What the databases hold for a lost request: content's record and leases, notification's
 * callback delivery and its entry in the due queue (Redis: due time or claim lease, in ms).
 */
export async function storedState(id: string): Promise<string> {
  const client = new MongoClient(process.env.MONGODB_URI!, { serverSelectionTimeoutMS: 5000 });
  try {
    // The run's own databases (<prefix>_<service>) on the run's own server.
    const { databases } = await client.db().admin().listDatabases();
    const named = (service: string) =>
      client.db(databases.find((d) => d.name.endsWith(`_${service}`))?.name ?? service);
    const content = named('content');
    const notification = named('notification');
    const deliveries = await notification
      .collection('deliveries')
      .find({ eventId: resultEventId(id) })
      .toArray();
    const ids = deliveries.map((d) => d._id as unknown as string);
    const found = {
      request: await content
        .collection('requests')
        .find({ requestId: id })
        .project({ input: 0, result: 0 })
        .toArray(),
      leases: await content.collection('request_leases').find({ requestId: id }).toArray(),
      deliveries: deliveries.map(({ payload: _payload, ...rest }) => rest),
      dueQueue: await dueEntries(notification.databaseName, ids),
    };
    return `      stored for ${id}: ${JSON.stringify(found)}`;
  } catch (error) {
    return `      stored for ${id}: not read (${String(error)})`;
  } finally {
    await client.close();
  }
}

/** The due-queue entries (member, score) of these deliveries, from the run's Redis. */
async function dueEntries(database: string, ids: string[]): Promise<string[]> {
  if (!process.env.REDIS_URL || ids.length === 0) return [];
  const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const entries = await redis.zrange(
      `switchyard:notification:${database}:{due}`,
      0,
      -1,
      'WITHSCORES',
    );
    return entries
      .filter((_, i) => i % 2 === 0 && ids.some((id) => entries[i]!.endsWith(` ${id}`)))
      .map((member) => `${member} ${entries[entries.indexOf(member) + 1]}`);
  } finally {
    redis.disconnect();
  }
}
