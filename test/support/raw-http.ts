import { connect } from 'node:net';

/** Raw bytes to a server and everything it answers until it closes (or timeoutMs passes). */
export function sendRaw(url: string, bytes: string | Buffer, timeoutMs = 5000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a half-closed connection is not what clients do (and Node drops its answers).
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', done);
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? done() : reject(error),
    );
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The responses in a raw answer (Content-Length framed, as the gateway's error answers are). */
export function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyBytes = Buffer.from(rest.slice(headEnd + 4), 'utf8');
    responses.push({
      status: Number(statusLine!.split(' ')[1]),
      headers,
      body: bodyBytes.subarray(0, length).toString('utf8'),
    });
    rest = bodyBytes.subarray(length).toString('utf8');
  }
  return responses;
}
