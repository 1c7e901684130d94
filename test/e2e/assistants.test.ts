import { expect } from 'chai';
import { api } from '../support/http';

function session(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

describe('e2e: assistants', () => {
  it('answers the general chat assistant with the exact fields', async () => {
    const res = await api('/api/v2/ai/assistants/chat', {
      body: { user_id: 'u1', session_id: session('chat'), messages: [{ role: 'user', content: 'Hello! What concerts are coming up?' }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('reply', 'session_id', 'agent', 'request_id', 'model', 'usage');
    expect(res.body.agent).to.equal('chat');
    expect(res.body.reply).to.be.a('string').and.not.empty;
    expect(res.body.usage).to.have.all.keys('tokens_used', 'timestamp');
    expect(res.body.usage.tokens_used).to.be.a('number').greaterThan(0);
    expect(res.body.usage.timestamp).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });

  it('answers support questions from its knowledge base', async () => {
    const res = await api('/api/v2/ai/assistants/support', {
      body: { user_id: 'u2', session_id: session('support'), messages: [{ role: 'user', content: 'How do I get a refund for my order?' }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.agent).to.equal('support');
    expect(res.body.reply.toLowerCase()).to.include('refund');
    expect(res.body).to.not.have.any.keys('step', 'next_step');
  });

  it('walks the onboarding agent through steps 1 to 5, asking to confirm each', async () => {
    const sessionId = session('onboarding');
    const history: Array<{ role: string; content: string }> = [];
    const topics = [
      'I want to create a course on Python for data analysis',
      'Modules: basics, pandas, visualisation',
      'Add notebooks and weekly assignments',
      'Quizzes after each module and a forum',
      'Launch in March with an email campaign',
    ];
    for (let step = 1; step <= 5; step++) {
      history.push({ role: 'user', content: topics[step - 1]! });
      const res = await api('/api/v2/ai/assistants/onboarding', {
        body: { user_id: 'u3', session_id: sessionId, step, messages: history },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.agent).to.equal('onboarding');
      expect(res.body.step).to.equal(step);
      expect(res.body.next_step).to.equal(step < 5 ? step + 1 : null);
      expect(res.body.reply).to.match(/confirm/i);
      history.push({ role: 'assistant', content: res.body.reply });
    }
  });

  it('validates step for onboarding and rejects it elsewhere', async () => {
    const base = { user_id: 'u4', session_id: session('v'), messages: [{ role: 'user', content: 'hi' }] };
    const missing = await api('/api/v2/ai/assistants/onboarding', { body: base });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.include('/step');
    const outOfRange = await api('/api/v2/ai/assistants/onboarding', { body: { ...base, step: 6 } });
    expect(outOfRange.status).to.equal(400);
    expect(outOfRange.body.error.details[0].field).to.equal('/step');
    const onChat = await api('/api/v2/ai/assistants/chat', { body: { ...base, step: 1 } });
    expect(onChat.status).to.equal(400);
    expect(onChat.body.error.details[0].field).to.equal('/step');
  });

  it('answers 404 for an unknown agent profile', async () => {
    const res = await api('/api/v2/ai/assistants/astrologer', {
      body: { user_id: 'u5', session_id: session('x'), messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });

  it('keeps session history server-side between calls', async () => {
    const sessionId = session('memory');
    const first = await api('/api/v2/ai/assistants/support', {
      body: { user_id: 'u6', session_id: sessionId, messages: [{ role: 'user', content: 'My order number is 48213 and it has not arrived' }] },
    });
    expect(first.status).to.equal(200);
    const second = await api('/api/v2/ai/assistants/support', {
      body: { user_id: 'u6', session_id: sessionId, messages: [{ role: 'user', content: 'Can you check the shipping status?' }] },
    });
    expect(second.status).to.equal(200);
    expect(second.body.reply).to.include('48213');
  });
});
