import { rejectedEventKey, type RejectedEvent, type RejectedEventStore } from './port';

export class InMemoryRejectedEventStore implements RejectedEventStore {
  private readonly events = new Map<string, RejectedEvent>();

  async recorded(
    events: Array<Pick<RejectedEvent, 'organization' | 'eventId'>>,
  ): Promise<Set<string>> {
    const keys = events.map((e) => rejectedEventKey(e.organization, e.eventId));
    return new Set(keys.filter((key) => this.events.has(key)));
  }

  async record(events: RejectedEvent[]): Promise<void> {
    for (const event of events) {
      const key = rejectedEventKey(event.organization, event.eventId);
      if (!this.events.has(key)) this.events.set(key, { ...event });
    }
  }
}
