import { resultEventId } from '@switchyard/shared';
import { MongoClient } from 'mongodb';

/**
 * What the databases hold for a lost request: content's record and leases, notification's
 * callback delivery, its retry schedule entry and claims.
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
      schedule: await notification
        .collection('delivery_schedule')
        .find({ _id: { $in: ids } } as object)
        .toArray(),
      claims: await notification
        .collection('delivery_claims')
        .find({ deliveryId: { $in: ids } })
        .toArray(),
    };
    return `      stored for ${id}: ${JSON.stringify(found)}`;
  } catch (error) {
    return `      stored for ${id}: not read (${String(error)})`;
  } finally {
    await client.close();
  }
}
