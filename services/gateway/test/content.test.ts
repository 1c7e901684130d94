import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { sampleWebhook } from './doubles';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import {
  AsyncAcknowledgment,
  GenerateContentResponse,
  TransformContentResponse,
} from '../src/schemas/content';

describe('gateway content routes', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  describe('POST /api/v2/ai/content/generate', () => {
    it('maps the request to content.Generate and answers 200 with the exact fields', async () => {
      const reply = await h.send('POST', '/api/v2/ai/content/generate', {
        body: {
          model: 'gpt-small',
          prompt: 'Describe a trail shoe',
          max_length: 200,
          tone: 'playful, warm',
          language: 'fr',
        },
      });
      expect(reply.status).to.equal(200);
      expect(reply.requestId).to.match(/^req_/);
      expect(reply.body).to.deep.equal({
        content: '**Generated** for: Describe a trail shoe',
        usage: { model: 'gpt-small', tokens_input: 12, tokens_output: 34, cost: 0.0021 },
        request_id: reply.requestId,
      });
      expectShape(reply.body, GenerateContentResponse);
      const call = h.doubles.content.last('Generate');
      // deep.include: the decoded message also carries proto-loader's synthetic oneof marker (_max_length).
      expect(call.request).to.deep.include({
        model: 'gpt-small',
        prompt: 'Describe a trail shoe',
        max_length: 200,
        tone: 'playful, warm',
        language: 'fr',
      });
      expect(call.context.requestId).to.equal(reply.requestId);
    });

    it('sends no max_length when the caller gave none (proto3 optional stays unset)', async () => {
      await h.send('POST', '/api/v2/ai/content/generate', { body: { prompt: 'x' } });
      const request = h.doubles.content.last('Generate').request;
      expect(request.max_length).to.equal(undefined);
      expect(request.model).to.equal('');
    });

    it('answers the unversioned alias /api/ai/content/generate the same way', async () => {
      const reply = await h.send('POST', '/api/ai/content/generate', { body: { prompt: 'x' } });
      expect(reply.status).to.equal(200);
      expect(reply.body.request_id).to.equal(reply.requestId);
      expect(h.doubles.content.called('Generate')).to.equal(1);
    });

    it('with webhookUrl: checks the URL itself (no call to notification), submits and answers 202 {status, requestId}', async () => {
      const url = 'https://hooks.example.com/result';
      const reply = await h.send('POST', '/api/v2/ai/content/generate', {
        body: { prompt: 'x', webhookUrl: url },
      });
      expect(reply.status).to.equal(202);
      expect(reply.body).to.deep.equal({ status: 'processing', requestId: reply.requestId });
      expectShape(reply.body, AsyncAcknowledgment);
      const submitted = h.doubles.content.last('SubmitGenerate');
      expect(submitted.request.webhook_url).to.equal(url);
      expect(submitted.request.request.prompt).to.equal('x');
      expect(submitted.context.requestId).to.equal(reply.requestId);
      expect(h.doubles.content.called('Generate')).to.equal(0);
      expect(h.doubles.notification.calls.length).to.equal(0);
    });

    it('without webhookUrl but with a request_completed webhook registered: 202, delivered to that default URL', async () => {
      h.doubles.notification.on('ListWebhooks', async () => ({
        webhooks: [{ ...sampleWebhook, events: ['request_completed'] }],
      }));
      const reply = await h.send('POST', '/api/v2/ai/content/generate', { body: { prompt: 'x' } });
      expect(reply.status).to.equal(202);
      expect(reply.body).to.deep.equal({ status: 'processing', requestId: reply.requestId });
      expect(h.doubles.content.last('SubmitGenerate').request.webhook_url).to.equal('');
      expect(h.doubles.content.called('Generate')).to.equal(0);
    });

    it('answers synchronously when the notification service cannot say whether a default URL exists', async () => {
      h.doubles.notification.on('ListWebhooks', async () => ({ webhooks: [] }));
      expect(
        (await h.send('POST', '/api/v2/ai/content/generate', { body: { prompt: 'x' } })).status,
      ).to.equal(200);
      h.doubles.notification.on('ListWebhooks', async () => {
        throw new AppError('unavailable', 'notification is down');
      });
      const reply = await h.send('POST', '/api/v2/ai/content/generate', { body: { prompt: 'x' } });
      expect(reply.status).to.equal(200);
      expect(h.doubles.content.called('Generate')).to.equal(2);
    });

    it('with a webhookUrl the policy refuses: 400 naming /webhookUrl with the reason, nothing submitted', async () => {
      const reply = await h.send('POST', '/api/v2/ai/content/generate', {
        body: { prompt: 'x', webhookUrl: 'http://169.254.169.254/latest' },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.code).to.equal('invalid_request');
      expect(reply.body.error.details).to.have.length(1);
      expect(reply.body.error.details[0].field).to.equal('/webhookUrl');
      expect(reply.body.error.details[0].reason).to.match(
        /169\.254\.169\.254 .*not allowed \(link-local/,
      );
      expect(h.doubles.content.called('SubmitGenerate')).to.equal(0);
    });
  });

  describe('POST /api/v2/ai/content/transform', () => {
    const path = '/api/v2/ai/content/transform';

    it("summarize: {original_length, transformed_text, usage without cost, request_id}; other actions' fields are ignored", async () => {
      const reply = await h.send('POST', path, {
        body: {
          action: 'summarize',
          text: 'A long text.',
          target_length: 'short',
          format: 'json',
          target_language: 'de',
        },
      });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        original_length: 12,
        transformed_text: 'short',
        usage: { model: 'default-model', tokens_input: 20, tokens_output: 8 },
        request_id: reply.requestId,
      });
      expectShape(reply.body, TransformContentResponse);
      const request = h.doubles.content.last('Transform').request;
      expect(request).to.include({
        action: 'summarize',
        target_length: 'short',
        format: '',
        target_language: '',
        source_language: '',
      });
    });

    it('reformat: {original_format, transformed_text, usage, request_id}', async () => {
      const reply = await h.send('POST', path, {
        body: { action: 'reformat', text: 'a. b.', format: 'bullet_list' },
      });
      expect(reply.body).to.deep.equal({
        original_format: 'paragraph',
        transformed_text: '- a\n- b',
        usage: { model: 'default-model', tokens_input: 20, tokens_output: 8 },
        request_id: reply.requestId,
      });
      expect(h.doubles.content.last('Transform').request.format).to.equal('bullet_list');
    });

    it('translate: {original_text, translated_text, usage, request_id}', async () => {
      const reply = await h.send('POST', path, {
        body: { action: 'translate', text: 'Hello', source_language: 'en', target_language: 'fr' },
      });
      expect(reply.body).to.deep.equal({
        original_text: 'Hello',
        translated_text: 'Bonjour',
        usage: { model: 'default-model', tokens_input: 20, tokens_output: 8 },
        request_id: reply.requestId,
      });
      expect(h.doubles.content.last('Transform').request).to.include({
        source_language: 'en',
        target_language: 'fr',
      });
    });

    it('requires format for reformat and target_language for translate', async () => {
      const reformat = await h.send('POST', path, { body: { action: 'reformat', text: 'x' } });
      expect(reformat.status).to.equal(400);
      expect(reformat.body.error.details).to.deep.equal([
        { field: '/format', reason: 'is required' },
      ]);
      const translate = await h.send('POST', path, { body: { action: 'translate', text: 'x' } });
      expect(translate.body.error.details).to.deep.equal([
        { field: '/target_language', reason: 'is required' },
      ]);
      expect(h.doubles.content.called('Transform')).to.equal(0);
    });

    it('rejects an unknown action and an unknown format value', async () => {
      const reply = await h.send('POST', path, {
        body: { action: 'shorten', text: 'x', format: 'docx' },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.have.members([
        '/action',
        '/format',
      ]);
      expect(reply.body.error.message).to.equal(
        'action must be one of: summarize, reformat, translate (and 1 more)',
      );
    });

    it('500 internal (no stack) when the service omits a field the action needs', async () => {
      h.doubles.content.on('Transform', async (_req, ctx) => ({
        usage: null,
        request_id: ctx.requestId,
      }));
      const reply = await h.send('POST', path, { body: { action: 'summarize', text: 'x' } });
      expect(reply.status).to.equal(500);
      expect(reply.body.error.code).to.equal('internal');
      expect(JSON.stringify(reply.body)).to.not.match(/at .*\.js/);
    });
  });
});
