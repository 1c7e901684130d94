import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { startHarness, resetDoubles, type Harness } from './harness';

const conversation = { user_id: 'u', session_id: 's', messages: [{ role: 'user', content: 'hi' }] };

describe('gateway mapping of downstream errors', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ deadlineMs: 300 })));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it("422 unsupported with the service's details", async () => {
    h.doubles.content.on('Transform', async () => {
      throw AppError.unsupported('model cannot translate en->tlh', [
        { field: '/target_language', reason: 'unsupported language pair' },
      ]);
    });
    const reply = await h.send('POST', '/api/v2/ai/content/transform', {
      body: { action: 'translate', text: 'x', target_language: 'tlh' },
    });
    expect(reply.status).to.equal(422);
    expect(reply.body).to.deep.equal({
      error: {
        code: 'unsupported',
        message: 'model cannot translate en->tlh',
        details: [{ field: '/target_language', reason: 'unsupported language pair' }],
      },
      request_id: reply.requestId,
    });
  });

  it('429 with Retry-After when the service knows it', async () => {
    h.doubles.content.on('Generate', async () => {
      throw new AppError('quota_exceeded', 'monthly quota exhausted', [], 120);
    });
    const reply = await h.send('POST', '/api/v2/ai/content/generate', { body: { prompt: 'x' } });
    expect(reply.status).to.equal(429);
    expect(reply.headers.get('retry-after')).to.equal('120');
    expect(reply.body.error.code).to.equal('quota_exceeded');
  });

  it('502 upstream_error passes through', async () => {
    h.doubles.assistant.on('Reply', async () => {
      throw new AppError('upstream_error', 'model provider failed');
    });
    const reply = await h.send('POST', '/api/v2/ai/assistants/chat', { body: conversation });
    expect(reply.status).to.equal(502);
    expect(reply.body.error.code).to.equal('upstream_error');
  });

  it("500 internal without leaking the service's exception", async () => {
    h.doubles.recommendation.on('Recommend', async () => {
      throw new Error('secret stack detail');
    });
    const reply = await h.send('POST', '/api/v2/ai/recommendations', { body: { userId: 'u' } });
    expect(reply.status).to.equal(500);
    expect(reply.body).to.deep.equal({
      error: { code: 'internal', message: 'internal error', details: [] },
      request_id: reply.requestId,
    });
  });

  it('504 timeout when the service misses the deadline', async () => {
    h.doubles.content.on(
      'ListModels',
      () => new Promise((resolve) => setTimeout(() => resolve({ models: [] }), 1500)),
    );
    const started = Date.now();
    const reply = await h.send('GET', '/api/v2/models');
    expect(reply.status).to.equal(504);
    expect(reply.body.error.code).to.equal('timeout');
    expect(Date.now() - started).to.be.lessThan(1400);
  });

  describe('with the notification service down', () => {
    before(() => h.doubles.notification.stop());

    it('503 unavailable on its routes, with Retry-After like every 503', async () => {
      const reply = await h.send('GET', '/api/webhooks');
      expect(reply.status).to.equal(503);
      expect(reply.body.error.code).to.equal('unavailable');
      expect(reply.headers.get('retry-after')).to.equal('1');
      expect(reply.body.request_id).to.equal(reply.requestId);
    });

    it('/readyz stays 200 (degraded) with each service status: the gateway stays in rotation', async () => {
      const reply = await h.send('GET', '/readyz', { auth: false });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        status: 'degraded',
        services: {
          content: 'SERVING',
          assistant: 'SERVING',
          recommendation: 'SERVING',
          notification: 'UNREACHABLE',
        },
        dependencies: {},
      });
      const metrics = (await h.send('GET', '/metrics', { auth: false })).body as string;
      expect(metrics).to.match(/gateway_downstream_up\{service="notification"\} 0/);
      expect(metrics).to.match(/gateway_downstream_up\{service="content"\} 1/);
    });

    it('other services keep working', async () => {
      expect((await h.send('GET', '/api/v2/models')).status).to.equal(200);
    });

    describe('and then every other service', () => {
      before(() =>
        Promise.all([
          h.doubles.content.stop(),
          h.doubles.assistant.stop(),
          h.doubles.recommendation.stop(),
        ]),
      );

      it('/readyz answers 503 unavailable listing each service status', async () => {
        const reply = await h.send('GET', '/readyz', { auth: false });
        expect(reply.status).to.equal(503);
        expect(reply.body.error.code).to.equal('unavailable');
        expect(reply.body.error.message).to.equal(
          'not ready: content, assistant, recommendation, notification',
        );
        expect(reply.body.error.details).to.deep.equal([
          { field: 'content', reason: 'UNREACHABLE' },
          { field: 'assistant', reason: 'UNREACHABLE' },
          { field: 'recommendation', reason: 'UNREACHABLE' },
          { field: 'notification', reason: 'UNREACHABLE' },
        ]);
      });
    });
  });
});
