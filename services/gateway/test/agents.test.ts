import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import { AgentList, AgentProfile, AssistantSession } from '../src/schemas/agents';

const STORED = {
  name: 'concierge',
  description: 'Box office',
  instructions: 'Be brief.',
  model: '',
  collections: ['gigs'],
  tools: ['search_knowledge'],
  greeting: 'Welcome!',
  steps: [],
  base: 'chat',
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
};

describe('gateway agent and session routes', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it('PUT /api/v2/agents/{name} sends the profile with the path name and renders it', async () => {
    h.doubles.assistant.on('PutAgent', async () => STORED);
    const res = await h.send('PUT', '/api/v2/agents/concierge', {
      body: {
        description: 'Box office',
        greeting: 'Welcome!',
        collections: ['gigs'],
        tools: ['search_knowledge'],
        instructions: 'Be brief.',
      },
    });
    expect(res.status).to.equal(200);
    expectShape(res.body, AgentProfile);
    expect(res.body).to.include({
      name: 'concierge',
      base: 'chat',
      builtin: false,
      createdAt: STORED.created_at,
    });
    expect(h.doubles.assistant.last('PutAgent').request).to.deep.include({
      name: 'concierge',
      greeting: 'Welcome!',
      base: '',
    });
  });

  it('refuses an unknown tool before calling the service', async () => {
    const res = await h.send('PUT', '/api/v2/agents/concierge', { body: { tools: ['shell'] } });
    expect(res.status).to.equal(400);
    expect(res.body.error.details[0].field).to.equal('/tools/0');
    expect(h.doubles.assistant.called('PutAgent')).to.equal(0);
  });

  it('a built-in without override reads as its default (builtin, no dates); lists mark custom agents', async () => {
    h.doubles.assistant.on('GetAgent', async () => ({
      ...STORED,
      name: 'chat',
      base: 'chat',
      created_at: '',
      updated_at: '',
    }));
    const chat = await h.send('GET', '/api/v2/agents/chat');
    expect(chat.body).to.include({ builtin: true, createdAt: null });
    expectShape(chat.body, AgentProfile);
    h.doubles.assistant.on('ListAgents', async () => ({
      agents: [
        { name: 'chat', description: 'c', uses_steps: false },
        { name: 'concierge', description: 'b', uses_steps: false },
      ],
      profiles: [STORED],
    }));
    const list = await h.send('GET', '/api/v2/agents');
    expectShape(list.body, AgentList);
    expect(
      list.body.agents.map((a: { name: string; custom: boolean }) => [a.name, a.custom]),
    ).to.deep.equal([
      ['chat', false],
      ['concierge', true],
    ]);
  });

  it('GET /api/v2/assistants/sessions/{id}: history and onboarding progress, 404 passed through', async () => {
    h.doubles.assistant.on('GetSession', async () => ({
      session_id: 's1',
      user_id: 'u1',
      agent: 'onboarding',
      messages: [{ role: 'user', content: 'hi' }],
      onboarding: {
        confirmed_steps: [1],
        current_step: 2,
        draft_json: '{"topic":"Python","modules":[]}',
      },
      created_at: '2026-11-20T10:00:00.000Z',
      updated_at: '2026-11-20T10:01:00.000Z',
    }));
    const res = await h.send('GET', '/api/v2/assistants/sessions/s1');
    expect(res.status).to.equal(200);
    expectShape(res.body, AssistantSession);
    expect(res.body.onboarding).to.deep.equal({
      confirmed_steps: [1],
      current_step: 2,
      draft: { topic: 'Python', modules: [] },
    });
    expect(h.doubles.assistant.last('GetSession').request.session_id).to.equal('s1');
    h.doubles.assistant.on('GetSession', async () => {
      throw AppError.notFound("session 'nope' not found");
    });
    expect((await h.send('GET', '/api/v2/assistants/sessions/nope')).status).to.equal(404);
  });
});
