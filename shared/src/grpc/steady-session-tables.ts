import { subscribe } from 'node:diagnostics_channel';
import type { Http2Session, Http2Stream } from 'node:http2';
import { types } from 'node:util';

/** The parts of Node's HTTP/2 session state (lib/internal/http2/core.js, Node 22-24) replaced here. */
interface SessionTables {
  streams: Map<number, Http2Stream>;
  pendingStreams: Set<Http2Stream>;
}

const steadied = Symbol('switchyard.steadySessionTables');
let subscribed = false;

/**
 * Gives every HTTP/2 session grpc-js opens or accepts stream tables that do not churn.
 *
 * Why: Node keeps a session's open streams in a Map and its not-yet-numbered ones in a Set, one
 * insert and one delete per stream. V8 rehashes such a table every few entries and links the old
 * table to the new one, entries included; once one of them has been promoted, every stream that
 * passed through the table survives young-generation GC until the next full one (patches/README.md:
 * the same in grpc-js). Arrays of the few streams in flight do not chain.
 *
 * Node's `http2.*.stream.created` diagnostics channels report each session's first stream; its
 * tables are replaced then, entries kept. A session whose state has another shape (another Node
 * release) is left as it is.
 */
export function steadyHttp2SessionTables(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('http2.client.stream.created', onStreamCreated);
  subscribe('http2.server.stream.created', onStreamCreated);
}

function onStreamCreated(message: unknown): void {
  const session = (message as { stream?: Http2Stream }).stream?.session as
    (Http2Session & { [steadied]?: true }) | undefined;
  if (!session || session[steadied]) return;
  session[steadied] = true;
  const state = sessionTables(session);
  if (!state) return;
  state.streams = new StreamTable(state.streams) as unknown as Map<number, Http2Stream>;
  state.pendingStreams = new PendingStreamTable(
    state.pendingStreams,
  ) as unknown as Set<Http2Stream>;
}

/** The session's internal state, if it has the shape this module knows. */
export function sessionTables(session: Http2Session): SessionTables | undefined {
  for (const symbol of Object.getOwnPropertySymbols(session)) {
    if (symbol.description !== 'state') continue;
    const state = (session as unknown as Record<symbol, Partial<SessionTables> | undefined>)[
      symbol
    ];
    // Node's SafeMap and SafeSet are Maps and Sets without Map.prototype in their chain.
    const ours =
      state?.streams instanceof StreamTable && state.pendingStreams instanceof PendingStreamTable;
    if (state && (ours || (types.isMap(state.streams) && types.isSet(state.pendingStreams))))
      return state as SessionTables;
  }
  return undefined;
}

/** What Node's session does with `streams` (get, set, delete, size, forEach), over two arrays. */
export class StreamTable<V> {
  private readonly ids: number[] = [];
  private readonly streams: V[] = [];

  constructor(entries: Iterable<[number, V]> = []) {
    for (const [id, stream] of entries) this.set(id, stream);
  }

  get size(): number {
    return this.ids.length;
  }

  get(id: number): V | undefined {
    const index = this.ids.indexOf(id);
    return index < 0 ? undefined : this.streams[index];
  }

  has(id: number): boolean {
    return this.ids.includes(id);
  }

  set(id: number, stream: V): this {
    const index = this.ids.indexOf(id);
    if (index >= 0) this.streams[index] = stream;
    else {
      this.ids.push(id);
      this.streams.push(stream);
    }
    return this;
  }

  delete(id: number): boolean {
    const index = this.ids.indexOf(id);
    if (index < 0) return false;
    removeAt(this.ids, index);
    removeAt(this.streams, index);
    return true;
  }

  /** Over a copy: Node destroys streams from inside this loop, and a destroyed stream leaves the table. */
  forEach(callback: (stream: V, id: number, table: this) => void): void {
    const ids = this.ids.slice();
    const streams = this.streams.slice();
    for (let i = 0; i < ids.length; i++) callback(streams[i]!, ids[i]!, this);
  }
}

/** What Node's session does with `pendingStreams` (add, delete, size, forEach), over an array. */
export class PendingStreamTable<V> {
  private readonly streams: V[] = [];

  constructor(streams: Iterable<V> = []) {
    for (const stream of streams) this.add(stream);
  }

  get size(): number {
    return this.streams.length;
  }

  has(stream: V): boolean {
    return this.streams.includes(stream);
  }

  add(stream: V): this {
    if (!this.streams.includes(stream)) this.streams.push(stream);
    return this;
  }

  delete(stream: V): boolean {
    const index = this.streams.indexOf(stream);
    if (index < 0) return false;
    removeAt(this.streams, index);
    return true;
  }

  /** Over a copy, as StreamTable.forEach. */
  forEach(callback: (stream: V, same: V, table: this) => void): void {
    for (const stream of this.streams.slice()) callback(stream, stream, this);
  }
}

/** In place and in order (Node cancels and destroys streams in the order they were opened). */
function removeAt<T>(array: T[], index: number): void {
  for (let i = index + 1; i < array.length; i++) array[i - 1] = array[i]!;
  array.pop();
}
