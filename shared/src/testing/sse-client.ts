/** A Server-Sent Event as received: its name and its JSON data. */
export interface ReceivedEvent {
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** Parses complete frames ("event: x\ndata: {...}\n\n"); returns the events and the unfinished rest. */
export function parseFrames(buffer: string): { events: ReceivedEvent[]; rest: string } {
  const frames = buffer.split('\n\n');
  const rest = frames.pop() ?? '';
  const events = frames.map((frame) => {
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice('event: '.length);
      else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
    }
    return { event, data: JSON.parse(data.join('\n')) };
  });
  return { events, rest };
}

/** Reads a response body as events, calling onEvent for each as it arrives (return false to stop reading). */
export async function readEvents(
  response: Response,
  onEvent: (event: ReceivedEvent) => boolean | void = () => true,
): Promise<ReceivedEvent[]> {
  const received: ReceivedEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const parsed = parseFrames(buffer + decoder.decode(value, { stream: true }));
    buffer = parsed.rest;
    for (const event of parsed.events) {
      received.push(event);
      if (onEvent(event) === false) {
        await reader.cancel();
        return received;
      }
    }
  }
  if (buffer.trim() !== '')
    throw new Error(`stream ended inside a frame: ${JSON.stringify(buffer)}`);
  return received;
}

/** The text of the delta events, joined. */
export function deltaText(events: ReceivedEvent[]): string {
  return events
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text as string)
    .join('');
}
