import { Heap } from 'heap-js';
import type { ClaimedEntry, ClaimRequest, DueEntry, DueQueue, LaneEntry, Settlement } from './port';

interface Entry {
  host: string;
  dueAt: number;
}

interface HeapItem {
  dueAt: number;
  id: string;
}

/**
 * The due queue in this process (embedded mode, tests, or a single replica without Redis). A
 * heap by due time with an item per change of an entry; an item that no longer matches its entry
 * is dropped when it surfaces. Starts incomplete, so the engine fills it from the delivery log.
 */
export class InMemoryDueQueue implements DueQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly heap = new Heap<HeapItem>((a, b) => a.dueAt - b.dueAt);
  /** Per lane, its deliveries in order: the head alone is in the queue. */
  private readonly lanes = new Map<string, Array<{ id: string; host: string }>>();
  /** Heads made by headEmptyLanes until their lanes move on: their lane, and whether a claim found them unlogged. */
  private readonly held = new Map<string, { lane: string; unlogged: boolean }>();
  private built = false;
  private rebuilding = 0;

  async schedule(entries: DueEntry[], options: { keepExisting?: boolean } = {}): Promise<void> {
    for (const { id, host, dueAt } of entries) {
      if (options.keepExisting && this.entries.has(id)) continue;
      this.put(id, host, dueAt);
    }
  }

  async claim(request: ClaimRequest): Promise<{ claimed: ClaimedEntry[]; postponed: number }> {
    const { now, limit, leaseUntil, room, postponeUntil } = request;
    const left = new Map(room.hosts);
    const claimed: ClaimedEntry[] = [];
    const postponed: Array<[string, Entry]> = [];
    let looked = 0;
    while (looked < limit && (this.heap.peek()?.dueAt ?? Infinity) <= now) {
      const item = this.heap.pop()!;
      const entry = this.entries.get(item.id);
      if (!entry || entry.dueAt !== item.dueAt) continue;
      looked++;
      const free = left.get(entry.host) ?? room.other;
      if (free <= 0) {
        postponed.push([item.id, entry]);
        continue;
      }
      left.set(entry.host, free - 1);
      this.put(item.id, entry.host, leaseUntil);
      claimed.push({ id: item.id, host: entry.host, lease: leaseUntil });
    }
    for (const [id, entry] of postponed) this.put(id, entry.host, postponeUntil);
    return { claimed, postponed: postponed.length };
  }

  async settle(settlements: Settlement[], now = Date.now()): Promise<void> {
    for (const { id, lease, next, lane } of settlements) {
      const entry = this.entries.get(id);
      if (entry?.dueAt === lease) {
        if (next === undefined) this.entries.delete(id);
        else this.put(id, entry.host, next);
      }
      if (lane !== undefined) this.advance(lane, id, now);
    }
  }

  async appendToLanes(entries: LaneEntry[]): Promise<string[]> {
    const heads: string[] = [];
    for (const { lane, id, host, dueAt } of entries) {
      const waiting = this.lanes.get(lane) ?? [];
      const at = waiting.findIndex((e) => e.id === id);
      if (at === 0 && !this.entries.has(id)) {
        this.put(id, waiting[0]!.host, dueAt);
        heads.push(id);
      }
      if (at >= 0) continue;
      waiting.push({ id, host });
      this.lanes.set(lane, waiting);
      if (waiting.length === 1) {
        this.put(id, host, dueAt);
        heads.push(id);
      }
    }
    return heads;
  }

  async headEmptyLanes(entries: LaneEntry[]): Promise<string[]> {
    const heads: string[] = [];
    for (const { lane, id, host, dueAt } of entries) {
      if (this.lanes.has(lane)) continue;
      this.lanes.set(lane, [{ id, host }]);
      this.held.set(id, { lane, unlogged: false });
      this.put(id, host, dueAt);
      heads.push(id);
    }
    return heads;
  }

  async releaseUnlogged(claims: ClaimedEntry[], retryAt: number, now = Date.now()): Promise<void> {
    const settlements: Settlement[] = [];
    for (const claim of claims) {
      const held = this.held.get(claim.id);
      if (!held) settlements.push(claim);
      else if (held.unlogged) settlements.push({ ...claim, lane: held.lane });
      else {
        held.unlogged = true;
        settlements.push({ ...claim, next: retryAt });
      }
    }
    await this.settle(settlements, now);
  }

  async advanceLane(lane: string, id: string, now: number): Promise<void> {
    this.advance(lane, id, now);
  }

  private advance(lane: string, id: string, now: number): void {
    const waiting = this.lanes.get(lane);
    const at = waiting?.findIndex((e) => e.id === id) ?? -1;
    if (!waiting || at < 0) return;
    this.held.delete(id);
    waiting.splice(at, 1);
    if (waiting.length === 0) this.lanes.delete(lane);
    else if (at === 0 && !this.entries.has(waiting[0]!.id))
      this.put(waiting[0]!.id, waiting[0]!.host, now);
  }

  async size(): Promise<number> {
    return this.entries.size;
  }

  async complete(): Promise<boolean> {
    return this.built;
  }

  async startRebuild(ttlMs: number): Promise<boolean> {
    if (this.rebuilding > Date.now()) return false;
    this.rebuilding = Date.now() + ttlMs;
    return true;
  }

  async finishRebuild(): Promise<void> {
    this.built = true;
    this.rebuilding = 0;
  }

  async close(): Promise<void> {}

  private put(id: string, host: string, dueAt: number): void {
    this.entries.set(id, { host, dueAt });
    this.heap.push({ id, dueAt });
    // Items of entries moved or removed surface only when due: past a bound the heap is rebuilt.
    if (this.heap.size() > 2 * this.entries.size + 1000) {
      this.heap.clear();
      this.heap.init([...this.entries].map(([key, entry]) => ({ id: key, dueAt: entry.dueAt })));
    }
  }
}
