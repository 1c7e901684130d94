/** A read in flight; `dropped` when the value changed meanwhile (the read may have missed it). */
interface Read<T> {
  value: Promise<T>;
  dropped: boolean;
}

/**
 * One value per organization (its agent profiles, its knowledge catalog), read from the store once
 * and then served from memory: dropped when this replica writes it, when another replica's
 * `assistant.changed` arrives, and at the latest after ttlMs (the bound on staleness if that
 * event is missed; 0 reads the store every time). Concurrent misses share one read; a read that
 * started before a drop is answered but not kept.
 */
export class OrganizationCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly reads = new Map<string, Read<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxOrganizations = 10_000,
  ) {}

  get(organization: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const cached = this.entries.get(organization);
    if (cached && cached.expiresAt > Date.now()) return Promise.resolve(cached.value);
    const pending = this.reads.get(organization);
    if (pending) return pending.value;
    const read: Read<T> = { value: load(), dropped: false };
    this.reads.set(organization, read);
    read.value.then(
      (value) => {
        if (this.reads.get(organization) === read) this.reads.delete(organization);
        if (!read.dropped) this.keep(organization, value);
      },
      () => {
        if (this.reads.get(organization) === read) this.reads.delete(organization);
      },
    );
    return read.value;
  }

  /** Forgets the organization's value: the next read goes to the store. */
  drop(organization: string): void {
    this.entries.delete(organization);
    const pending = this.reads.get(organization);
    if (pending) {
      pending.dropped = true;
      this.reads.delete(organization);
    }
  }

  private keep(organization: string, value: T): void {
    this.entries.delete(organization);
    if (this.entries.size >= this.maxOrganizations)
      this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(organization, { value, expiresAt: Date.now() + this.ttlMs });
  }
}
