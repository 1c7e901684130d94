/** One published schema of an event type: versions count from 1 and are never changed. */
export interface EventTypeVersionRecord {
  version: number;
  /** A JSON Schema 2020-12 document, checked when saved. */
  schema: object;
  /** An example of the data, valid under the schema (checked when saved): the catalog's and the test event's. */
  example?: object;
  createdAt: string;
}

/** An organization's own event type (a domain event such as order.shipped). */
export interface EventTypeRecord {
  organization: string;
  /** Dotted lowercase, unique per organization; never reused, even once deleted. */
  name: string;
  description: string;
  /** Oldest first; the last one is the current schema. */
  versions: EventTypeVersionRecord[];
  createdAt: string;
  updatedAt: string;
  /** Set by delete: no new events of the type are accepted. */
  deletedAt?: string;
}

export interface EventTypeStore {
  /** Stores a new type; false if the organization has one of that name already (deleted ones too). */
  create(record: EventTypeRecord): Promise<boolean>;
  get(organization: string, name: string): Promise<EventTypeRecord | undefined>;
  /** The organization's types, deleted ones included, by name. */
  list(organization: string): Promise<EventTypeRecord[]>;
  /**
   * Appends a version if the type's current version is still `version.version - 1` and it is not
   * deleted (two concurrent updates cannot both take the same number); the updated type, or
   * undefined if it changed meanwhile or is gone.
   */
  addVersion(
    organization: string,
    name: string,
    version: EventTypeVersionRecord,
    description?: string,
  ): Promise<EventTypeRecord | undefined>;
  /** Marks the type deleted (once: a repeat keeps the first time); the type, or undefined if unknown. */
  markDeleted(organization: string, name: string, at: string): Promise<EventTypeRecord | undefined>;
}
