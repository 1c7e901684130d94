import type { Credentials } from './cases';
import type { Random } from './random';

/** Malformed HTTP over a raw socket: what the parser refuses, and framing tricks it must not trust. */
export function rawRequests(credentials: Credentials): Array<{ name: string; bytes: string }> {
  const auth = `Authorization: X-API-Key ${credentials.apiKey}\r\nX-Admin-Token: ${credentials.adminToken}\r\n`;
  const models = `GET /api/v2/models HTTP/1.1\r\nHost: gateway\r\n${auth}`;
  const generate = (headers: string, body: string) =>
    `POST /api/v2/ai/content/generate HTTP/1.1\r\nHost: gateway\r\n${auth}Content-Type: application/json\r\n${headers}\r\n${body}`;
  return [
    { name: 'keep-alive then garbage', bytes: `${models}\r\n{}${models}\r\n` },
    { name: 'empty Content-Length', bytes: `${models}Content-Length:\r\n\r\n{}` },
    { name: 'headers over 16 KB', bytes: `${models}X-Filler: ${'a'.repeat(20_000)}\r\n\r\n` },
    {
      name: 'URL over 16 KB',
      bytes: `GET /api/v2/models?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: g\r\n${auth}\r\n`,
    },
    { name: 'invalid method', bytes: `FOO@BAR /api/v2/models HTTP/1.1\r\nHost: g\r\n${auth}\r\n` },
    { name: 'HTTP/9.9', bytes: `GET /api/v2/models HTTP/9.9\r\nHost: g\r\n${auth}\r\n` },
    { name: 'no version', bytes: `GET /api/v2/models\r\n${auth}\r\n` },
    {
      name: 'bare LF',
      bytes: `GET /api/v2/models HTTP/1.1\nHost: g\n${auth.replace(/\r\n/g, '\n')}\n`,
    },
    { name: 'header without colon', bytes: `${models}NoColonHere\r\n\r\n` },
    { name: 'space before colon', bytes: `${models}Content-Length : 2\r\n\r\n{}` },
    { name: 'control char in header', bytes: `${models}X-Bad: a\u0001b\r\n\r\n` },
    {
      name: 'non-ASCII in request line',
      bytes: `GET /api/v2/mödels HTTP/1.1\r\nHost: g\r\n${auth}\r\n`,
    },
    { name: 'negative Content-Length', bytes: generate('Content-Length: -5\r\n', '{}') },
    {
      name: 'two Content-Lengths',
      bytes: generate('Content-Length: 2\r\nContent-Length: 20\r\n', '{}'),
    },
    {
      name: 'Content-Length and chunked',
      bytes: generate('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'),
    },
    {
      name: 'bad chunk size',
      bytes: generate('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n'),
    },
    {
      name: 'chunk longer than said',
      bytes: generate('Transfer-Encoding: chunked\r\n', '2\r\n{"prompt":"x"}\r\n0\r\n\r\n'),
    },
    {
      name: 'unknown transfer coding',
      bytes: generate('Transfer-Encoding: gzip, chunked\r\n', '0\r\n\r\n'),
    },
    {
      name: 'body shorter than Content-Length',
      bytes: generate('Content-Length: 50\r\n', '{"prompt":"x"}'),
    },
    { name: 'huge Content-Length', bytes: generate('Content-Length: 99999999999\r\n', '{}') },
    { name: 'obs-fold header', bytes: `${models}X-Folded: a\r\n  b\r\n\r\n` },
    {
      name: 'many headers',
      bytes: `${models}${Array.from({ length: 3000 }, (_, i) => `X-H${i}: 1\r\n`).join('')}\r\n`,
    },
    {
      name: 'absolute-form URL',
      bytes: `GET http://evil.example/api/v2/models HTTP/1.1\r\nHost: g\r\n${auth}\r\n`,
    },
    { name: 'asterisk-form', bytes: `OPTIONS * HTTP/1.1\r\nHost: g\r\n\r\n` },
    { name: 'CONNECT', bytes: `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: g\r\n${auth}\r\n` },
    { name: 'NUL in path', bytes: `GET /api/v2/models\u0000 HTTP/1.1\r\nHost: g\r\n${auth}\r\n` },
    {
      name: 'TLS hello on plain port',
      bytes: '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
    },
    { name: 'just CRLFs', bytes: '\r\n\r\n\r\n\r\n' },
  ];
}

export function pickRaw(credentials: Credentials, random: Random): { name: string; bytes: string } {
  return random.pick(rawRequests(credentials));
}
