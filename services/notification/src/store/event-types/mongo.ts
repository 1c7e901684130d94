import type { Db } from 'mongodb';
import { Collections, insertIgnoringDuplicate } from '../collections';
import type { EventTypeRecord, EventTypeStore, EventTypeVersionRecord } from './port';

interface EventTypeDoc extends Omit<EventTypeRecord, 'versions'> {
  /** Schemas are stored as JSON text: their keywords ($ref, $defs...) are not valid field names. */
  versions: Array<
    Omit<EventTypeVersionRecord, 'schema' | 'example'> & { schema: string; example?: string }
  >;
  /** How many versions there are: the guard of addVersion. */
  version: number;
}

/** One document per (organization, name), unique; versions are appended in place. */
export class MongoEventTypeStore implements EventTypeStore {
  private readonly collection;

  constructor(db: Db) {
    this.collection = db.collection<EventTypeDoc>(Collections.eventTypes);
  }

  create(record: EventTypeRecord): Promise<boolean> {
    const doc: EventTypeDoc = {
      ...record,
      versions: record.versions.map(storedVersion),
      version: record.versions.length,
    };
    return insertIgnoringDuplicate(() => this.collection.insertOne(doc));
  }

  async get(organization: string, name: string): Promise<EventTypeRecord | undefined> {
    const doc = await this.collection.findOne({ organization, name });
    return doc ? recordOf(doc) : undefined;
  }

  async list(organization: string): Promise<EventTypeRecord[]> {
    const docs = await this.collection.find({ organization }).sort({ name: 1 }).toArray();
    return docs.map(recordOf);
  }

  async addVersion(
    organization: string,
    name: string,
    version: EventTypeVersionRecord,
    description?: string,
  ): Promise<EventTypeRecord | undefined> {
    const doc = await this.collection.findOneAndUpdate(
      { organization, name, version: version.version - 1, deletedAt: { $exists: false } },
      {
        $push: { versions: storedVersion(version) },
        $set: {
          version: version.version,
          updatedAt: version.createdAt,
          ...(description !== undefined && { description }),
        },
      },
      { returnDocument: 'after' },
    );
    return doc ? recordOf(doc) : undefined;
  }

  async markDeleted(
    organization: string,
    name: string,
    at: string,
  ): Promise<EventTypeRecord | undefined> {
    await this.collection.updateOne(
      { organization, name, deletedAt: { $exists: false } },
      { $set: { deletedAt: at } },
    );
    return this.get(organization, name);
  }
}

/** Schemas and examples as JSON text: their keys ($ref, dotted names) are not valid field names. */
function storedVersion({ example, ...version }: EventTypeVersionRecord) {
  return {
    ...version,
    schema: JSON.stringify(version.schema),
    ...(example !== undefined && { example: JSON.stringify(example) }),
  };
}

function recordOf(doc: EventTypeDoc): EventTypeRecord {
  return {
    organization: doc.organization,
    name: doc.name,
    description: doc.description,
    versions: doc.versions.map((v) => ({
      version: v.version,
      schema: JSON.parse(v.schema) as object,
      ...(v.example !== undefined && { example: JSON.parse(v.example) as object }),
      createdAt: v.createdAt,
    })),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(doc.deletedAt && { deletedAt: doc.deletedAt }),
  };
}
