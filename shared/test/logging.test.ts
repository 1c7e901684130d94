import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../src/index';

const KEY = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const ADMIN = 'adm_a1b2c3d4e5f6a7b8c9d0';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()),
  });
  return { logger: createLogger('test', 'trace', sink), text: () => lines.join('') };
}

/** What Node's HTTP parser attaches to a parse error: the raw request bytes. */
function parserError(): Error {
  const raw = `GET /api/v2/models HTTP/1.1\r\nAuthorization: X-API-Key ${KEY}\r\nX-Admin-Token: ${ADMIN}\r\n\r\n{}`;
  return Object.assign(new Error('Parse Error: Invalid method encountered'), {
    code: 'HPE_INVALID_METHOD',
    rawPacket: Buffer.from(raw),
    reason: raw,
  });
}

describe('logging: no credential is ever written (issue 10, reproduction 2)', () => {
  it('logs an error by its allowed fields only: never the raw packet or other own properties', () => {
    const { logger, text } = capture();
    logger.warn({ err: parserError() }, 'response failed after it started');
    const line = JSON.parse(text());
    expect(line.err).to.include({
      type: 'Error',
      code: 'HPE_INVALID_METHOD',
      message: 'Parse Error: Invalid method encountered',
    });
    expect(line.err).to.not.have.any.keys('rawPacket', 'reason');
    expect(text()).to.not.include(KEY).and.not.include(ADMIN);
  });

  it('redacts credential headers and secrets by field name, at any depth of a request', () => {
    const { logger, text } = capture();
    logger.info(
      {
        req: {
          headers: { authorization: `X-API-Key ${KEY}`, 'x-admin-token': ADMIN, cookie: 'sid=1' },
        },
        secret: SECRET,
        adminToken: ADMIN,
      },
      'request',
    );
    expect(text())
      .to.not.include(KEY)
      .and.not.include(ADMIN)
      .and.not.include(SECRET)
      .and.not.include('sid=1');
  });

  it('redacts by field name values no pattern would recognise, and leaves the logged object as it was', () => {
    const { logger, text } = capture();
    const headers = {
      Authorization: 'hunter2',
      'Proxy-Authorization': 'opensesame',
      accept: 'application/json',
    };
    const fields = {
      req: { headers },
      list: [{ password: 'swordfish' }],
      config: { signingSecret: 'plain-words' },
    };
    logger.info(fields, 'request');
    const line = JSON.parse(text());
    expect(text())
      .to.not.include('hunter2')
      .and.not.include('opensesame')
      .and.not.include('swordfish')
      .and.not.include('plain-words');
    expect(line.req.headers).to.deep.equal({
      Authorization: '[redacted]',
      'Proxy-Authorization': '[redacted]',
      accept: 'application/json',
    });
    expect(headers.Authorization, 'the caller still holds its own headers').to.equal('hunter2');
    expect(fields.list[0]!.password).to.equal('swordfish');
  });

  it('scrubs keys, secrets and auth header values from messages and free-form fields, keeping valid JSON', () => {
    const { logger, text } = capture();
    logger.error(
      {
        note: `client sent Authorization: Bearer ${ADMIN}`,
        url: `https://hook.example/?s=${SECRET}`,
      },
      `call with X-API-Key ${KEY} failed`,
    );
    logger.error(
      { err: new Error(`upstream echoed ${KEY}`, { cause: new Error(`x-admin-token: ${ADMIN}`) }) },
      'failed',
    );
    for (const line of text().trim().split('\n')) expect(() => JSON.parse(line)).to.not.throw();
    expect(text()).to.not.include(KEY).and.not.include(ADMIN).and.not.include(SECRET);
    expect(text()).to.include('[redacted]');
  });
});
