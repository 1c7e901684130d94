import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import { startHarness, resetDoubles, type Harness } from './harness';
import { wordsOf, type StreamWriter } from './doubles';
import { expectShape } from './shape';
import { deltaText, readEvents, type ReceivedEvent } from '@switchyard/shared/testing';
import { GenerateContentResponse } from '../src/schemas/content';
import { AssistantReply } from '../src/schemas/assistants';
import { buildOpenApi } from '../src/openapi';
import { routeTable } from '../src/routes';

const GENERATE = '/api/v2/ai/content/generate';

describe('gateway streaming (Server-Sent Events)', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(h.baseUrl + path, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${h.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  }

  function expectEventStream(response: Response): void {
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).to.equal('no-cache');
    expect(response.headers.get('x-accel-buffering')).to.equal('no');
    expect(response.headers.get('x-request-id')).to.match(/^req_/);
  }

  describe('POST /api/v2/ai/content/generate with stream: true', () => {
    it('sends one delta event per chunk, then done with exactly the non-streamed body', async () => {
      const response = await post(GENERATE, {
        model: 'gpt-small',
        prompt: 'Describe a trail shoe',
        stream: true,
      });
      expectEventStream(response);
      const requestId = response.headers.get('x-request-id');
      const events = await readEvents(response);

      const expectedContent = '**Generated** for: Describe a trail shoe';
      expect(events.map((e) => e.event)).to.deep.equal([
        ...wordsOf(expectedContent).map(() => 'delta'),
        'done',
      ]);
      expect(events.slice(0, -1).map((e) => e.data)).to.deep.equal(
        wordsOf(expectedContent).map((text) => ({ text })),
      );
      const done = events[events.length - 1] as ReceivedEvent;
      expect(done.data).to.deep.equal({
        content: expectedContent,
        usage: { model: 'gpt-small', tokens_input: 12, tokens_output: 34, cost: 0.0021 },
        request_id: requestId,
      });
      expectShape(done.data, GenerateContentResponse);
      expect(deltaText(events)).to.equal(done.data.content);

      const plain = await h.send('POST', GENERATE, {
        body: { model: 'gpt-small', prompt: 'Describe a trail shoe' },
      });
      expect({ ...done.data, request_id: plain.requestId }).to.deep.equal(plain.body);

      const call = h.doubles.content.last('GenerateStream');
      expect(call.request).to.deep.include({ model: 'gpt-small', prompt: 'Describe a trail shoe' });
      expect(call.context.requestId).to.equal(requestId);
      expect(h.doubles.content.called('Generate')).to.equal(1); // only the plain request above
    });

    it('answers a failure before the first chunk as a normal JSON error with its status', async () => {
      h.doubles.content.on('GenerateStream', async () => {
        throw new AppError('rate_limited', 'provider rate limit', [], 7);
      });
      const reply = await h.send('POST', GENERATE, { body: { prompt: 'x', stream: true } });
      expect(reply.status).to.equal(429);
      expect(reply.headers.get('content-type')).to.match(/^application\/json/);
      expect(reply.headers.get('retry-after')).to.equal('7');
      expect(reply.body).to.deep.equal({
        error: { code: 'rate_limited', message: 'provider rate limit', details: [] },
        request_id: reply.requestId,
      });
    });

    it('passes the status of an invalid model before the stream started (400 with details)', async () => {
      h.doubles.content.on('GenerateStream', async () => {
        throw AppError.invalid('unknown model "gpt-9"', '/model', 'unknown model');
      });
      const reply = await h.send('POST', GENERATE, {
        body: { prompt: 'x', model: 'gpt-9', stream: true },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error).to.deep.equal({
        code: 'invalid_request',
        message: 'unknown model "gpt-9"',
        details: [{ field: '/model', reason: 'unknown model' }],
      });
    });

    it('ends with an error event carrying the standard error body when the stream fails after it started', async () => {
      h.doubles.content.on('GenerateStream', async (_req, _ctx, stream: StreamWriter) => {
        stream.write({ delta: 'Half ' });
        stream.write({ delta: 'an answer' });
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new AppError('upstream_error', 'the model provider failed');
      });
      const response = await post(GENERATE, { prompt: 'x', stream: true });
      expectEventStream(response);
      const events = await readEvents(response);
      expect(events).to.deep.equal([
        { event: 'delta', data: { text: 'Half ' } },
        { event: 'delta', data: { text: 'an answer' } },
        {
          event: 'error',
          data: {
            error: { code: 'upstream_error', message: 'the model provider failed', details: [] },
            request_id: response.headers.get('x-request-id'),
          },
        },
      ]);
    });

    it('ends with an internal error event when the stream ends without its final chunk', async () => {
      h.doubles.content.on('GenerateStream', async (_req, _ctx, stream: StreamWriter) => {
        stream.write({ delta: 'cut' });
      });
      const response = await post(GENERATE, { prompt: 'x', stream: true });
      const events = await readEvents(response);
      expect(events.map((e) => e.event)).to.deep.equal(['delta', 'error']);
      expect(events[1]?.data.error.code).to.equal('internal');
    });

    it('cancels the gRPC stream when the client disconnects', async () => {
      h.doubles.content.on('GenerateStream', async (_req, _ctx, stream: StreamWriter) => {
        stream.write({ delta: 'first ' });
        // Holds the stream open until the gateway cancels it (or fails the test by timing out).
        await Promise.race([stream.cancelled, new Promise((resolve) => setTimeout(resolve, 4000))]);
      });
      const abort = new AbortController();
      const response = await post(GENERATE, { prompt: 'x', stream: true }, abort.signal);
      const seen: string[] = [];
      await readEvents(response, (event) => {
        seen.push(event.event);
        abort.abort();
        return false;
      }).catch(() => undefined); // the aborted body rejects the read
      expect(seen).to.deep.equal(['delta']);
      await waitFor(() => h.doubles.content.cancellations.includes('GenerateStream'), 3000);
    });

    it('rejects stream together with webhookUrl with 400 before calling any service', async () => {
      const reply = await h.send('POST', GENERATE, {
        body: { prompt: 'x', stream: true, webhookUrl: 'https://hooks.example.com/in' },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.code).to.equal('invalid_request');
      expect(reply.body.error.details).to.deep.equal([
        { field: '/stream', reason: 'must not be true together with webhookUrl' },
      ]);
      expect(h.doubles.content.calls).to.have.length(0);
      expect(h.doubles.notification.calls).to.have.length(0);
    });

    it('rejects a stream flag that is not a boolean', async () => {
      const reply = await h.send('POST', GENERATE, { body: { prompt: 'x', stream: 'yes' } });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.details[0].field).to.equal('/stream');
    });

    it('answers plain JSON for stream: false', async () => {
      const reply = await h.send('POST', GENERATE, { body: { prompt: 'x', stream: false } });
      expect(reply.status).to.equal(200);
      expect(reply.body.content).to.equal('**Generated** for: x');
      expect(h.doubles.content.called('GenerateStream')).to.equal(0);
    });
  });

  describe('assistants with stream: true', () => {
    const messages = [{ role: 'user', content: 'hello there' }];

    it('streams the chat reply and ends with done = the non-streamed reply body', async () => {
      const response = await post('/api/v2/ai/assistants/chat', {
        user_id: 'u1',
        session_id: 's1',
        messages,
        model: 'fake-gpt',
        stream: true,
      });
      expectEventStream(response);
      const events = await readEvents(response);
      const done = events[events.length - 1] as ReceivedEvent;
      expect(done.event).to.equal('done');
      expect(done.data).to.deep.equal({
        reply: 'Hello from chat',
        session_id: 's1',
        agent: 'chat',
        request_id: response.headers.get('x-request-id'),
        model: 'chat-model',
        usage: { tokens_used: 42, timestamp: '2026-11-21T15:04:47.184Z' },
      });
      expectShape(done.data, AssistantReply);
      expect(deltaText(events)).to.equal('Hello from chat');
      expect(h.doubles.assistant.last('ReplyStream').request).to.deep.include({
        agent: 'chat',
        model: 'fake-gpt',
        session_id: 's1',
      });
    });

    it('streams an onboarding reply whose done event has step and next_step', async () => {
      const response = await post('/api/v2/ai/assistants/onboarding', {
        user_id: 'u1',
        session_id: 's2',
        messages,
        step: 5,
        stream: true,
      });
      const events = await readEvents(response);
      const done = events[events.length - 1] as ReceivedEvent;
      expect(done.data).to.deep.include({ agent: 'onboarding', step: 5, next_step: null });
    });

    it('answers an unknown agent before the stream with a JSON 404', async () => {
      h.doubles.assistant.on('ReplyStream', async () => {
        throw AppError.notFound("unknown agent profile 'sales'");
      });
      const reply = await h.send('POST', '/api/v2/ai/assistants/sales', {
        body: { user_id: 'u1', session_id: 's1', messages, stream: true },
      });
      expect(reply.status).to.equal(404);
      expect(reply.body.error.code).to.equal('not_found');
    });
  });

  describe('OpenAPI', () => {
    const doc = buildOpenApi(routeTable) as any;

    it('documents the stream flag on generate and on the assistant requests', () => {
      for (const name of ['GenerateContentRequest', 'AssistantChatRequest', 'AssistantRequest']) {
        expect(doc.components.schemas[name].properties.stream.type, name).to.equal('boolean');
      }
    });

    it('documents text/event-stream responses', () => {
      expect(doc.paths['/api/v2/ai/content/generate'].post.responses['200'].content).to.have.keys(
        'application/json',
        'text/event-stream',
      );
      expect(doc.paths['/api/v2/ai/assistants/chat'].post.responses['200'].content).to.have.keys(
        'application/json',
        'text/event-stream',
      );
    });
  });
});
