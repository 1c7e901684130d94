import type { ReportedUsage } from '../usage';

const LF_LF = Buffer.from('\n\n');
const CRLF_CRLF = Buffer.from('\r\n\r\n');
const USAGE_KEY = Buffer.from('"usage"');
const DONE = Buffer.from('[DONE]');

/** The end of the last complete event in `data` (just after its blank line), or -1. */
function lastBoundary(data: Buffer): number {
  const lf = data.lastIndexOf(LF_LF);
  const crlf = data.lastIndexOf(CRLF_CRLF);
  if (lf < 0 && crlf < 0) return -1;
  return lf + 2 > crlf + 4 ? lf + 2 : crlf + 4;
}

const isSpace = (byte: number | undefined) =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** Whether the events carry a `"usage": {...}` member (every chunk may carry `"usage": null`). */
export function hasUsageObject(data: Buffer): boolean {
  for (let at = data.indexOf(USAGE_KEY); at >= 0; at = data.indexOf(USAGE_KEY, at + 1)) {
    let i = at + USAGE_KEY.length;
    while (isSpace(data[i])) i++;
    if (data[i] !== 0x3a) continue; // ':' : a key, not a string value
    i++;
    while (isSpace(data[i])) i++;
    if (data[i] === 0x7b) return true; // '{'
  }
  return false;
}

interface Chunk {
  choices?: unknown[] | null;
  usage?: ReportedUsage | null;
}

/**
 * Relays a provider's chat.completion.chunk event stream as it arrives: whole events are
 * forwarded without being parsed or copied, except the few that need a decision: `[DONE]`
 * (the gateway ends the stream itself, after the usage is settled) and the usage chunk, which is
 * read for billing and forwarded only if the client asked for it (the service always asks the
 * provider for it). The bytes are kept until a usage chunk arrives, so a provider that sends none
 * can still be counted at the end.
 */
export class ChatStreamRelay {
  /** The usage the provider reported. */
  usage?: ReportedUsage;
  private pending?: Buffer;
  private kept: Buffer[] = [];

  constructor(private readonly includeUsage: boolean) {}

  /** The whole events in `chunk` (with what was pending) to forward, or undefined for none yet. */
  push(chunk: Uint8Array): Buffer | undefined {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const data = this.pending ? Buffer.concat([this.pending, bytes]) : bytes;
    const end = lastBoundary(data);
    if (end < 0) {
      this.pending = data;
      return undefined;
    }
    this.pending = end < data.length ? data.subarray(end) : undefined;
    return this.complete(end < data.length ? data.subarray(0, end) : data);
  }

  /** At the end of the provider's stream: an unterminated last event, if any. */
  end(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    if (!rest || rest.toString().trim() === '') return undefined;
    return this.complete(Buffer.concat([rest, LF_LF]));
  }

  /** What was relayed, for counting when the provider reported no usage. */
  relayedText(): string {
    return Buffer.concat(this.kept).toString();
  }

  private complete(events: Buffer): Buffer | undefined {
    if (this.usage === undefined) this.kept.push(events);
    if (events.indexOf(DONE) < 0 && !hasUsageObject(events)) return events;
    return this.filter(events);
  }

  /** Event by event: [DONE] dropped, the usage read (and dropped unless asked for). */
  private filter(events: Buffer): Buffer | undefined {
    let out = '';
    for (const event of events.toString().split(/\r?\n\r?\n/)) {
      if (event.trim() === '') continue;
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data.trim() === '[DONE]') continue;
      out += this.usageEvent(event, data);
    }
    return out === '' ? undefined : Buffer.from(out);
  }

  private usageEvent(event: string, data: string): string {
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      return `${event}\n\n`;
    }
    if (!chunk.usage) return `${event}\n\n`;
    this.usage = chunk.usage;
    this.kept = [];
    if (this.includeUsage) return `${event}\n\n`;
    if (!chunk.choices?.length) return '';
    // Usage on a chunk that also carries choices: the choices go on, the usage stays here.
    const { usage: _usage, ...rest } = chunk;
    return `data: ${JSON.stringify(rest)}\n\n`;
  }
}
