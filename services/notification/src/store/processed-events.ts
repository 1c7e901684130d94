/** Event ids a consumer has fully handled (at-least-once delivery: skip repeats cheaply). */
export interface ProcessedEvents {
  has(organization: string, eventId: string): Promise<boolean>;
  mark(organization: string, eventId: string): Promise<void>;
}

export class InMemoryProcessedEvents implements ProcessedEvents {
  private readonly seen = new Set<string>();

  async has(organization: string, eventId: string): Promise<boolean> {
    return this.seen.has(`${organization}\u0000${eventId}`);
  }

  async mark(organization: string, eventId: string): Promise<void> {
    this.seen.add(`${organization}\u0000${eventId}`);
  }
}
