import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import { AssistantReply } from '../src/schemas/assistants';

describe('gateway assistant routes', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const conversation = {
    user_id: 'u1',
    session_id: 's1',
    messages: [
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hi' },
    ],
  };

  it('chat: calls Reply with agent "chat" and answers without step keys', async () => {
    const reply = await h.send('POST', '/api/v2/ai/assistants/chat', {
      body: { ...conversation, model: 'chat-model' },
    });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      reply: 'Hello from chat',
      session_id: 's1',
      agent: 'chat',
      request_id: reply.requestId,
      model: 'chat-model',
      usage: { tokens_used: 42, timestamp: '2026-11-21T15:04:47.184Z' },
    });
    expectShape(reply.body, AssistantReply);
    const call = h.doubles.assistant.last('Reply');
    expect(call.request).to.deep.include({
      agent: 'chat',
      user_id: 'u1',
      session_id: 's1',
      model: 'chat-model',
    });
    expect(call.request.messages).to.deep.equal(conversation.messages);
    expect(call.request.step).to.equal(undefined);
  });

  it('chat: step is an unknown field', async () => {
    const reply = await h.send('POST', '/api/v2/ai/assistants/chat', {
      body: { ...conversation, step: 1 },
    });
    expect(reply.status).to.equal(400);
    expect(reply.body.error.details).to.deep.equal([
      { field: '/step', reason: 'is not an allowed field' },
    ]);
  });

  it('support: same shape, no step or next_step keys', async () => {
    const reply = await h.send('POST', '/api/v2/ai/assistants/support', { body: conversation });
    expect(reply.status).to.equal(200);
    expect(reply.body.agent).to.equal('support');
    expect(reply.body).to.not.have.any.keys('step', 'next_step');
    expect(h.doubles.assistant.last('Reply').request.agent).to.equal('support');
  });

  it('onboarding: step and next_step, next_step null after step 5', async () => {
    const third = await h.send('POST', '/api/v2/ai/assistants/onboarding', {
      body: { ...conversation, step: 3 },
    });
    expect(third.body).to.include({ step: 3, next_step: 4, request_id: third.requestId });
    expectShape(third.body, AssistantReply);
    const last = await h.send('POST', '/api/v2/ai/assistants/onboarding', {
      body: { ...conversation, step: 5 },
    });
    expect(last.body.step).to.equal(5);
    expect(last.body).to.have.property('next_step', null);
    expect(h.doubles.assistant.last('Reply').request.step).to.equal(5);
  });

  it('onboarding: step is required and must be 1..5', async () => {
    const missing = await h.send('POST', '/api/v2/ai/assistants/onboarding', {
      body: conversation,
    });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details).to.deep.equal([{ field: '/step', reason: 'is required' }]);
    const outOfRange = await h.send('POST', '/api/v2/ai/assistants/onboarding', {
      body: { ...conversation, step: 6 },
    });
    expect(outOfRange.body.error.details).to.deep.equal([
      { field: '/step', reason: 'must be <= 5' },
    ]);
    expect(outOfRange.body.error.message).to.equal('step must be an integer >= 1 and <= 5');
    expect(h.doubles.assistant.called('Reply')).to.equal(0);
  });

  it('requires at least one message', async () => {
    const reply = await h.send('POST', '/api/v2/ai/assistants/support', {
      body: { ...conversation, messages: [] },
    });
    expect(reply.status).to.equal(400);
    expect(reply.body.error.details[0].field).to.equal('/messages');
  });

  it("unknown agent: the service's not_found becomes 404 with its message", async () => {
    h.doubles.assistant.on('Reply', async (req) => {
      throw AppError.notFound(`unknown agent ${req.agent}`);
    });
    const reply = await h.send('POST', '/api/v2/ai/assistants/astrologer', { body: conversation });
    expect(reply.status).to.equal(404);
    expect(reply.body).to.deep.equal({
      error: { code: 'not_found', message: 'unknown agent astrologer', details: [] },
      request_id: reply.requestId,
    });
  });
});
