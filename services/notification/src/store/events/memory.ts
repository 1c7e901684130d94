import {
  eventRecordKey,
  isAfter,
  typeRange,
  type EventFilter,
  type EventRecord,
  type EventStore,
} from './port';

/** Events kept in one process at most (the oldest dropped first), whatever the retention. */
export const IN_MEMORY_EVENTS = 10_000;

export class InMemoryEventStore implements EventStore {
  /** In insertion order, so the oldest received go first. */
  private readonly events = new Map<string, EventRecord>();

  constructor(
    private readonly retentionMs: number,
    private readonly maxEvents = IN_MEMORY_EVENTS,
  ) {}

  async record(events: EventRecord[]): Promise<void> {
    for (const event of events) {
      const key = eventRecordKey(event.organization, event.id);
      if (!this.events.has(key)) this.events.set(key, structuredClone(event));
    }
    while (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value!);
  }

  async get(organization: string, id: string): Promise<EventRecord | undefined> {
    const event = this.events.get(eventRecordKey(organization, id));
    return event && this.kept(event) ? structuredClone(event) : undefined;
  }

  async list(organization: string, filter: EventFilter): Promise<EventRecord[]> {
    const range = filter.type === undefined ? undefined : typeRange(filter.type);
    return [...this.events.values()]
      .filter(
        (e) =>
          e.organization === organization &&
          this.kept(e) &&
          (!range ||
            ('exact' in range
              ? e.type === range.exact
              : e.type >= range.from && e.type < range.to)) &&
          (filter.key === undefined || e.key === filter.key) &&
          (!filter.since || e.receivedAt >= filter.since) &&
          (!filter.until || e.receivedAt < filter.until) &&
          (!filter.after || isAfter(e, filter.after)),
      )
      .sort((a, b) => (isAfter(a, b) ? 1 : -1))
      .slice(0, filter.limit)
      .map((e) => structuredClone(e));
  }

  private kept(event: EventRecord): boolean {
    return Date.parse(event.receivedAt) + this.retentionMs > Date.now();
  }
}
