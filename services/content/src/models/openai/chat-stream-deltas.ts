import type { ReportedUsage } from '../usage';

interface Chunk {
  choices?: { delta?: { content?: string | null } | null }[] | null;
  usage?: ReportedUsage | null;
  error?: { message?: string } | null;
}

/** A provider's error event in the middle of a stream (OpenAI's SDK raises the same). */
export class StreamErrorEvent extends Error {
  constructor(readonly error: { message?: string }) {
    super(error.message || 'the provider sent an error event');
  }
}

/**
 * Reads a provider's chat.completion.chunk event stream as it arrives and gives, per network
 * chunk, the text of the whole events in it at once: a model streaming faster than the caller
 * reads costs one delta downstream per read, not one per token. The usage chunk is kept.
 */
export class ChatStreamDeltas {
  usage?: ReportedUsage;
  private pending = '';
  private readonly decoder = new TextDecoder();

  /** The text of the whole events in `bytes` (with what was pending); '' for none. */
  push(bytes: Uint8Array): string {
    const data = this.pending + this.decoder.decode(bytes, { stream: true });
    const lf = data.lastIndexOf('\n\n');
    const crlf = data.lastIndexOf('\r\n\r\n');
    if (lf < 0 && crlf < 0) {
      this.pending = data;
      return '';
    }
    const end = Math.max(lf < 0 ? 0 : lf + 2, crlf < 0 ? 0 : crlf + 4);
    this.pending = data.slice(end);
    return this.read(data.slice(0, end));
  }

  /** At the end of the stream: the text of an unterminated last event, if any. */
  end(): string {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    return rest.trim() === '' ? '' : this.read(rest);
  }

  private read(events: string): string {
    let text = '';
    for (const event of events.split(/\r?\n\r?\n/)) {
      // An event's data is its data lines joined (OpenAI sends one line per event).
      let data = '';
      for (const line of event.split(/\r?\n/))
        if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(5).trimStart();
      if (data.trim() === '' || data.trim() === '[DONE]') continue;
      let chunk: Chunk;
      try {
        chunk = JSON.parse(data) as Chunk;
      } catch {
        continue; // not an event of this protocol
      }
      if (chunk.error) throw new StreamErrorEvent(chunk.error);
      if (chunk.usage) this.usage = chunk.usage;
      const delta = chunk.choices?.[0]?.delta?.content;
      if (delta) text += delta;
    }
    return text;
  }
}
