import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '@switchyard/shared';

/** Stored response bodies are cut to this many bytes. */
export const MAX_RESPONSE_BODY_BYTES = 1024;

export interface HttpPost {
  url: URL;
  /** The checked address to connect to; DNS is not consulted again. */
  address: ResolvedAddress;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

export interface HttpResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class SendError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
  }
}

/** A lookup that always answers with the pre-checked address (Host header and SNI stay the hostname). */
function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return ((
    _hostname: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    if (options?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as unknown as LookupFunction;
}

/**
 * Connections are kept open between attempts (a new TCP/TLS connection per attempt would cost
 * more than the attempt, and a burst would run out of local ports). A kept connection goes to an
 * address that was checked when it was opened; each attempt is still checked before it is sent.
 * Idle connections close before a typical server's 5 s keep-alive timeout would close them.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4000 }),
};

/** One POST without following redirects; resolves with the status and up to 1 KiB of the body. */
export function postOnce(request: HttpPost): Promise<HttpResponse> {
  const secure = request.url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = transport.request(request.url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(request.body.length) },
      lookup: pinnedLookup(request.address),
      agent: secure ? agents['https:'] : agents['http:'],
    });
    const timer = setTimeout(() => {
      req.destroy(new SendError('timeout', `no response within ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error instanceof SendError ? error : new SendError('network', error.message));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES).toString('utf8');
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough kept: stop reading so a huge or endless body cannot hold the slot.
        if (size >= MAX_RESPONSE_BODY_BYTES) {
          finish();
          res.destroy();
        }
      });
      res.on('end', finish);
      res.on('error', finish);
    });
    req.end(request.body);
  });
}
