/** The processing requests one store instance leased (created or claimed) and has not finished. */
export interface HeldLease {
  organization: string;
  requestId: string;
  /** Which lease of the request this is (the Mongo store numbers them). */
  generation: number;
}

export class HeldLeases {
  private readonly held = new Map<string, HeldLease>();

  private static key(organization: string, requestId: string): string {
    return `${organization}\u0000${requestId}`;
  }

  add(organization: string, requestId: string, generation = 0): void {
    this.held.set(HeldLeases.key(organization, requestId), { organization, requestId, generation });
  }

  delete(organization: string, requestId: string): void {
    this.held.delete(HeldLeases.key(organization, requestId));
  }

  get(organization: string, requestId: string): HeldLease | undefined {
    return this.held.get(HeldLeases.key(organization, requestId));
  }

  has(organization: string, requestId: string): boolean {
    return this.held.has(HeldLeases.key(organization, requestId));
  }

  list(): HeldLease[] {
    return [...this.held.values()];
  }
}
