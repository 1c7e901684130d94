import type { ApiResponse } from './http';

/** One kind of call of a load: its name and how to send it (a fresh one each time). */
export interface LoadCall {
  name: string;
  send(sequence: number): Promise<ApiResponse>;
}

/** One answer (or failure to answer) of the load, with the phase it was sent in. */
export interface LoadRecord {
  phase: string;
  call: string;
  /** 0: no HTTP answer (connection refused or reset). */
  status: number;
  ms: number;
  retryAfter: string | null;
  code?: string;
  sentAt: number;
}

/**
 * Calls sent continuously by a few workers, round robin over the kinds, each answer recorded with
 * the phase the test is in (setPhase): what a fault test asserts on ("during the outage: only 200
 * and 503 with Retry-After, each within a second").
 */
export class MixedLoad {
  readonly records: LoadRecord[] = [];
  private phase = 'start';
  private running = false;
  private workers: Promise<void>[] = [];
  private sequence = 0;

  constructor(
    private readonly calls: LoadCall[],
    private readonly concurrency = 4,
    /** Pause between one worker's calls (ms). */
    private readonly pauseMs = 20,
  ) {}

  start(): void {
    this.running = true;
    this.workers = Array.from({ length: this.concurrency }, () => this.work());
  }

  setPhase(phase: string): void {
    this.phase = phase;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** The records of one phase. */
  of(phase: string): LoadRecord[] {
    return this.records.filter((r) => r.phase === phase);
  }

  /** Status counts of records, e.g. {"200": 31, "503": 12}. */
  static statuses(records: LoadRecord[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of records) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return counts;
  }

  private async work(): Promise<void> {
    while (this.running) {
      const n = this.sequence++;
      const call = this.calls[n % this.calls.length]!;
      const phase = this.phase;
      const sentAt = Date.now();
      try {
        const res = await call.send(n);
        this.records.push({
          phase,
          call: call.name,
          status: res.status,
          ms: Date.now() - sentAt,
          retryAfter: res.headers.get('retry-after'),
          code: (res.body as { error?: { code?: string } } | undefined)?.error?.code,
          sentAt,
        });
      } catch {
        this.records.push({
          phase,
          call: call.name,
          status: 0,
          ms: Date.now() - sentAt,
          retryAfter: null,
          sentAt,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
  }
}
