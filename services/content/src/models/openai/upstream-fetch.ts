import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

/**
 * Content's provider requests (the openai SDK's `fetch` below and ChatClient's relay) go through
 * node:http / node:https on one keep-alive Agent per scheme per process. No socket cap: each
 * model's maxConcurrency bounds its requests. Idle sockets close after 30 s, or a second before the
 * provider's own Keep-Alive timeout if it announces a shorter one. Measured against undici's
 * request API (docs/benchmarks.md, issue 40): less CPU per call, and a burst's first requests leave
 * as their starts finish instead of after the whole burst. Proxy variables are not read (an Agent
 * without `proxyEnv`, as the undici pool before): providers are reached directly.
 */
const AGENT_OPTIONS = { keepAlive: true, timeout: 30_000 };
const agents = { http: new http.Agent(AGENT_OPTIONS), https: new https.Agent(AGENT_OPTIONS) };

export interface UpstreamRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/**
 * One request to a provider; resolves with the answer's head, its body left to read as it
 * arrives. Redirects are not followed (a model endpoint that redirects is misconfigured, and
 * following one would leave the address the registry vetted). Aborting `signal` destroys the
 * request and its socket, before or during the answer.
 */
export function upstreamRequest(
  url: string | URL,
  init: UpstreamRequest,
  resent = false,
): Promise<http.IncomingMessage> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = (secure ? https : http).request(
      target,
      {
        method: init.method,
        headers: init.headers,
        signal: init.signal,
        agent: secure ? agents.https : agents.http,
      },
      (answer) => {
        answered = true;
        resolve(answer);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket reset before any answer: the provider closed it as idle while this
      // request was on its way (Node's documented race), so it is sent once more on a new one.
      if (!answered && !resent && request.reusedSocket && error.code === 'ECONNRESET')
        resolve(upstreamRequest(target, init, true));
      else reject(error);
    });
    request.end(init.body);
  });
}

/** Statuses whose responses have no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

type FetchInit = NonNullable<Parameters<typeof fetch>[1]>;

function isPlainBody(body: FetchInit['body']): body is string | Uint8Array | null | undefined {
  return (
    body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
  );
}

function requestHeaders(headers: FetchInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * The `fetch` the openai SDK is given: a WHATWG Response whose body streams from the provider's
 * answer, on the Agents above. The global fetch would cost about 0.2 ms of CPU per call before
 * any byte moves (measured with the SDK against the bench mock), most of what the gateway adds.
 * Bodies other than text or bytes, which the chat and embeddings calls never send, go to the
 * global fetch.
 */
export async function upstreamFetch(
  input: string | URL | Request,
  init: FetchInit = {},
): Promise<Response> {
  if (input instanceof Request || !isPlainBody(init.body)) return fetch(input, init);
  const answer = await upstreamRequest(input, {
    method: init.method ?? 'GET',
    headers: requestHeaders(init.headers),
    body: init.body ?? undefined,
    signal: init.signal ?? undefined,
  });
  const status = answer.statusCode ?? 0;
  let body: ReadableStream | null = null;
  if (NULL_BODY_STATUS.has(status)) answer.resume();
  else body = Readable.toWeb(answer) as ReadableStream;
  return new Response(body, {
    status,
    statusText: answer.statusMessage,
    headers: responseHeaders(answer.rawHeaders),
  });
}
