import { expect } from 'chai';
import { startHarness, resetDoubles, type Harness, type Reply } from './harness';
import { maxNesting, MAX_JSON_DEPTH, tooDeep } from '../src/middleware/body';

function fields(reply: Reply): string[] {
  return reply.body.error.details.map((d: { field: string }) => d.field);
}

function expectInvalid(reply: Reply): void {
  expect(reply.status).to.equal(400);
  expect(reply.body.error.code).to.equal('invalid_request');
  expect(reply.body.request_id).to.equal(reply.requestId);
}

describe('gateway request bodies', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ bodyLimitBytes: 1024 })));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const path = '/api/v2/ai/content/generate';

  it('415 for a body that is not application/json', async () => {
    const reply = await h.send('POST', path, { raw: '{"prompt":"x"}', headers: { 'content-type': 'text/plain' } });
    expect(reply.status).to.equal(415);
    expect(reply.body.error.code).to.equal('unsupported_media_type');
    expect(h.doubles.content.calls).to.have.length(0);
  });

  it('415 for a body without Content-Type, 200 with a UTF-8 charset', async () => {
    expect((await h.send('POST', path, { raw: '{"prompt":"x"}', headers: { 'content-type': '' } })).status).to.equal(415);
    const ok = await h.send('POST', path, { raw: '{"prompt":"x"}', headers: { 'content-type': 'application/json; charset=UTF-8' } });
    expect(ok.status).to.equal(200);
  });

  it('413 when Content-Length declares more than the limit', async () => {
    const reply = await h.send('POST', path, { body: { prompt: 'x'.repeat(2000) } });
    expect(reply.status).to.equal(413);
    expect(reply.body.error.code).to.equal('payload_too_large');
    expect(reply.body.request_id).to.equal(reply.requestId);
  });

  it('413 while reading a chunked body that grows past the limit', async () => {
    const chunk = new TextEncoder().encode(`{"prompt":"${'y'.repeat(600)}`);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(h.baseUrl + path, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${h.key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).to.equal(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('payload_too_large');
  });

  it('400 for invalid JSON', async () => {
    const reply = await h.send('POST', path, { raw: '{"prompt": "x",', headers: { 'content-type': 'application/json' } });
    expectInvalid(reply);
    expect(reply.body.error.message).to.equal('request body is not valid JSON');
  });

  it('400 for a JSON body that is not an object', async () => {
    const reply = await h.send('POST', path, { body: ['prompt'] });
    expectInvalid(reply);
    expect(fields(reply)).to.deep.equal(['']);
  });

  it('names a missing required field', async () => {
    const reply = await h.send('POST', path, { body: { tone: 'formal' } });
    expectInvalid(reply);
    expect(reply.body.error.details).to.deep.equal([{ field: '/prompt', reason: 'is required' }]);
    expect(reply.body.error.message).to.equal('prompt is required');
  });

  it('names an unknown field', async () => {
    const reply = await h.send('POST', path, { body: { prompt: 'x', foo: 1 } });
    expectInvalid(reply);
    expect(reply.body.error.details).to.deep.equal([{ field: '/foo', reason: 'is not an allowed field' }]);
  });

  it('names a wrong type and summarises the constraint', async () => {
    const reply = await h.send('POST', path, { body: { prompt: 'x', max_length: 'long' } });
    expectInvalid(reply);
    expect(reply.body.error.details).to.deep.equal([{ field: '/max_length', reason: 'must be integer' }]);
    expect(reply.body.error.message).to.equal('max_length must be an integer >= 1 and <= 32768');
  });

  it('names out-of-range values', async () => {
    for (const value of [0, 32769, 1.5]) {
      const reply = await h.send('POST', path, { body: { prompt: 'x', max_length: value } });
      expectInvalid(reply);
      expect(fields(reply), String(value)).to.deep.equal(['/max_length']);
    }
  });

  it('reports every offending field, the first one in the message', async () => {
    const reply = await h.send('POST', path, { body: { max_length: 0, language: 'English', webhookUrl: 'not a url', extra: true } });
    expectInvalid(reply);
    expect(fields(reply)).to.have.members(['/prompt', '/max_length', '/language', '/webhookUrl', '/extra']);
    expect(reply.body.error.message).to.match(/^prompt is required \(and 4 more\)$/);
  });

  it('rejects an empty prompt and an overlong tone', async () => {
    const reply = await h.send('POST', path, { body: { prompt: '', tone: 't'.repeat(201) } });
    expectInvalid(reply);
    expect(fields(reply)).to.have.members(['/prompt', '/tone']);
  });

  it('names nested fields as JSON pointers', async () => {
    const reply = await h.send('POST', '/api/v2/ai/assistants/support', {
      body: { user_id: 'u', session_id: 's', messages: [{ role: 'user', content: 'hi' }, { role: 'robot', content: 'x', at: 1 }] },
    });
    expectInvalid(reply);
    expect(fields(reply)).to.have.members(['/messages/1/role', '/messages/1/at']);
    expect(reply.body.error.message).to.match(/^messages\[1\]\.(role must be one of: user, system, assistant|at is not an allowed field)/);
  });

  it('treats a POST without body as {}', async () => {
    const reply = await h.send('POST', path);
    expectInvalid(reply);
    expect(fields(reply)).to.deep.equal(['/prompt']);
  });
});

describe('JSON nesting, read from the text before any walk of the value', () => {
  it('counts brackets, not those inside strings or after escapes', () => {
    expect(maxNesting('{}')).to.equal(1);
    expect(maxNesting('{"a":[{"b":[]}]}')).to.equal(4);
    expect(maxNesting('{"a":"[[[{{{","b":"\\"[[[","c":[1]}')).to.equal(2);
    expect(maxNesting('"[[["')).to.equal(0);
  });

  it('agrees with the walk of the parsed value on where "too deep" starts', () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    for (const levels of [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      const text = nested(levels);
      expect(maxNesting(text), `${levels} levels`).to.equal(levels);
      expect(maxNesting(text) > MAX_JSON_DEPTH, `${levels} levels`).to.equal(tooDeep(JSON.parse(text), MAX_JSON_DEPTH) !== undefined);
    }
  });
});
