import { AppError, withDeps, type CallContext } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { DataUpdatedPublisher } from '@switchyard/shared';
import { SupportEscalationPublisher } from '../src/events/support-escalation-publisher';
import { deleteAgent, getAgent, listAgents, putAgent } from '../src/handlers/agents';
import { AgentDirectory } from '../src/agents/directory';
import { getSession } from '../src/handlers/get-session';
import { KnowledgeService } from '../src/knowledge/knowledge-service';
import { InMemoryKnowledgeStore } from '../src/store/knowledge/memory';
import { keepRetrievedLinks } from '../src/responders/citations';
import { KnowledgeRetriever } from '../src/retrieval/knowledge-retriever';
import { InMemoryAgentProfileStore } from '../src/store/profiles/memory';
import { expect } from './chai';
import { Conversation, makeReply, RecordingBus } from './helpers';
import {
  berlinConcertsThisWeekend,
  SAMPLE_COURSES_CSV,
  SAMPLE_NOW,
  SAMPLE_ZONE,
  sampleEvents,
} from './sample-knowledge';

const ORG_A: CallContext = { organization: 'org_a', keyId: 'key_a', requestId: 'req_a' };
const ORG_B: CallContext = { organization: 'org_b', keyId: 'key_b', requestId: 'req_b' };
const LINK = /\[([^\]]+)\]\(([^)]+)\)/g;

function links(text: string): Array<{ title: string; url: string }> {
  return [...text.matchAll(LINK)].map((m) => ({ title: m[1] as string, url: m[2] as string }));
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(AppError);
  return error as AppError;
}

/** The assistant's reply path on in-memory stores, with the sample organization's data imported. */
async function sampleAssistant() {
  const store = new InMemoryKnowledgeStore();
  const now = () => SAMPLE_NOW;
  const profiles = new InMemoryAgentProfileStore();
  const { reply, sessions, agents, bus } = makeReply(50, (recording) => ({
    profiles,
    knowledge: { store, retriever: new KnowledgeRetriever(store, now) },
    escalations: new SupportEscalationPublisher(recording, silentLogger()),
  }));
  const knowledge = new KnowledgeService(
    store,
    new DataUpdatedPublisher(bus, silentLogger(), 'assistant'),
    now,
  );
  const events = sampleEvents();
  await knowledge.createCollection('org_a', {
    name: 'events',
    kind: 'events',
    timeZone: SAMPLE_ZONE,
  });
  await knowledge.import(
    'org_a',
    'events',
    'jsonl',
    events.map((e) => JSON.stringify(e)).join('\n'),
  );
  await knowledge.createCollection('org_a', {
    name: 'courses',
    kind: 'courses',
    timeZone: SAMPLE_ZONE,
  });
  await knowledge.import('org_a', 'courses', 'csv', SAMPLE_COURSES_CSV);
  const agentHandlers = withDeps(
    {
      directory: new AgentDirectory(agents, profiles),
      profiles,
      knowledge: { store },
      models: { listModels: async () => ({ models: [] }) },
      defaultModel: 'builtin',
    },
    { listAgents, putAgent, getAgent, deleteAgent },
  );
  return {
    reply,
    knowledge,
    events,
    bus,
    sessions,
    agentHandlers,
    getSession: (request: { session_id: string }, context: CallContext) =>
      getSession({ sessions }, request, context),
  };
}

function profile(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    description: '',
    instructions: '',
    model: '',
    collections: [],
    tools: [],
    greeting: '',
    steps: [],
    base: '',
    escalation: null,
    serving: null,
    created_at: '',
    updated_at: '',
    ...overrides,
  };
}

describe("assistants on an organization's own knowledge", () => {
  it('"concerts in Berlin this weekend" lists exactly the matching upcoming events, each linked, nothing else linked', async () => {
    const { reply, events } = await sampleAssistant();
    const expected = berlinConcertsThisWeekend(events);
    const answer = await new Conversation(reply, 'chat', {}, ORG_A).say(
      'Any concerts in Berlin this weekend?',
    );
    expect(links(answer.reply)).to.deep.equal(
      expected.map((e) => ({ title: e.title, url: e.url })),
    );
    expect(answer.reply).to.include('Sat 21 Nov');
  });

  it('a second organization sees none of it, and with no knowledge of its own says so (no fallback data)', async () => {
    const { reply, events } = await sampleAssistant();
    const answer = await new Conversation(reply, 'chat', {}, ORG_B).say(
      'Any concerts in Berlin this weekend?',
    );
    for (const event of events) expect(answer.reply).to.not.include(event.url);
    expect(links(answer.reply)).to.deep.equal([]);
    expect(answer.reply).to.match(/^I don't have any event information yet/);
  });

  it("onboarding keeps the user's own course in the draft, never the catalogue's (resumable)", async () => {
    const { reply, getSession } = await sampleAssistant();
    const onboarding = new Conversation(reply, 'onboarding', { session_id: 'onb-1' }, ORG_A);
    await onboarding.say('I want to create a course on Python for data analysis for beginners', 1);
    await onboarding.say('done', 1);
    const step2 = await onboarding.say('Module 1 Cleaning data\nModule 2 Charts that explain', 2);
    expect(step2.reply)
      .to.include('1. Module 1 Cleaning data')
      .and.include('2. Module 2 Charts that explain');
    // The organization's catalogue has a course of that name: its modules are not the user's.
    expect(step2.reply).to.not.include('Variables and types');
    expect(links(step2.reply)).to.deep.equal([]);
    const session = await getSession({ session_id: 'onb-1' }, ORG_A);
    expect(session.onboarding?.confirmed_steps).to.deep.equal([1]);
    expect(session.onboarding?.current_step).to.equal(2);
    const draft = JSON.parse(session.onboarding?.draft_json ?? '{}');
    expect(draft).to.deep.include({
      topic: 'Python for data analysis',
      audience: 'beginners',
      modules: ['Module 1 Cleaning data', 'Module 2 Charts that explain'],
      openSteps: [],
    });
    expect(draft.notes['2']).to.deep.equal([
      'Module 1 Cleaning data\nModule 2 Charts that explain',
    ]);
    expect((await failure(getSession({ session_id: 'onb-1' }, ORG_B))).code).to.equal('not_found');
  });

  it('an organization defines its own agent; it answers at its name with its greeting and collections, for that organization only', async () => {
    const { reply, agentHandlers } = await sampleAssistant();
    await agentHandlers.putAgent(
      profile('concierge', {
        greeting: 'Welcome to Acme Events!',
        collections: ['events'],
        instructions: 'Be brief.',
      }),
      ORG_A,
    );
    const greeted = await new Conversation(reply, 'concierge', { session_id: 'c1' }, ORG_A).say(
      'hi',
    );
    expect(greeted.reply).to.equal('Welcome to Acme Events!');
    expect(greeted.agent).to.equal('concierge');
    const asked = await new Conversation(reply, 'concierge', { session_id: 'c2' }, ORG_A).say(
      'comedy in Vienna next weekend',
    );
    // Only its collections, and the question as the user put it (no empty slot, no stemmed word).
    expect(asked.reply).to.match(
      /^(I couldn't find any comedies in Vienna|Here is 1 comedy in Vienna|Here are \d+ comedies in Vienna)/,
    );
    const listed = await agentHandlers.listAgents({}, ORG_A);
    expect((listed.agents ?? []).map((a) => a.name)).to.deep.equal([
      'chat',
      'concierge',
      'onboarding',
      'support',
    ]);
    expect(
      (await failure(new Conversation(reply, 'concierge', {}, ORG_B).say('hi'))).code,
    ).to.equal('not_found');
    expect(
      (await failure(new Conversation(reply, 'astrologer', {}, ORG_A).say('hi'))).message,
    ).to.equal("unknown agent profile 'astrologer'; known: chat, concierge, onboarding, support");
  });

  it('a step agent defined as data leads through its own steps, in order', async () => {
    const { reply, agentHandlers } = await sampleAssistant();
    const steps = [
      { title: 'Your goals', goal: 'Say what you want to learn.', confirm: 'Confirm your goals.' },
      { title: 'Your schedule', goal: 'Say when you can study.', confirm: '' },
      { title: 'Your plan', goal: 'Agree on the plan.', confirm: 'Confirm the plan.' },
    ];
    await agentHandlers.putAgent(profile('intake', { steps }), ORG_A);
    expect((await agentHandlers.getAgent({ name: 'intake' }, ORG_A)).base).to.equal('onboarding');
    const intake = new Conversation(reply, 'intake', { session_id: 'i1' }, ORG_A);
    const first = await intake.say('I want to learn SQL', 1);
    // A reply built from the step's purpose, not its raw fields.
    expect(first.reply)
      .to.include('**Step 1 of 3: Your goals**')
      .and.include('This step is about your goals: say what you want to learn.')
      .and.include('When this step is complete (confirm your goals), reply "done".')
      .and.include('> I want to learn SQL');
    expect([first.step, first.next_step]).to.deep.equal([1, 2]);
    // The client owns the step: a later one answers, naming the earlier step still open.
    const skipped = await intake.say('evenings after 7', 2);
    expect([skipped.step, skipped.next_step]).to.deep.equal([2, 3]);
    expect(skipped.reply).to.include('Not confirmed yet: step 1 (Your goals)');
    const second = await intake.say('done', 2);
    expect(second.reply)
      .to.include('Step 2 (Your schedule) is confirmed')
      .and.include('Not confirmed yet: step 1 (Your goals)')
      .and.include('Next is step 3: **Your plan**');
    await intake.say('done', 1);
    await intake.say('the plan is fine', 3);
    const last = await intake.say('done', 3);
    expect(last.reply).to.equal(
      'Step 3 (Your plan) is confirmed. ✅\n\nThat completes all 3 steps.',
    );
    expect(last.next_step).to.equal(undefined);
    expect((await failure(intake.say('more', 4))).details).to.deep.equal([
      { field: '/step', reason: 'must be integer 1..3' },
    ]);
  });

  it('refuses a profile naming unknown collections or tools, with each field', async () => {
    const { agentHandlers } = await sampleAssistant();
    const error = await failure(
      agentHandlers.putAgent(
        profile('Bad Name', { collections: ['nope'], tools: ['shell'], base: 'sales' }),
        ORG_A,
      ),
    );
    expect(error.details.map((d) => d.field)).to.deep.equal([
      '/name',
      '/base',
      '/tools/0',
      '/collections/0',
    ]);
  });

  it('overrides the built-in chat agent for one organization only, and deleting the override restores it', async () => {
    const { reply, agentHandlers } = await sampleAssistant();
    await agentHandlers.putAgent(profile('chat', { greeting: 'Hallo from Acme!' }), ORG_A);
    expect(
      (await new Conversation(reply, 'chat', { session_id: 'o1' }, ORG_A).say('hello')).reply,
    ).to.equal('Hallo from Acme!');
    expect(
      (await new Conversation(reply, 'chat', { session_id: 'o1' }, ORG_B).say('hello')).reply,
    ).to.match(/^Hello! I don't have any event or course information yet/);
    expect((await agentHandlers.getAgent({ name: 'chat' }, ORG_A)).base).to.equal('chat');
    await agentHandlers.deleteAgent({ name: 'chat' }, ORG_A);
    expect(
      (await new Conversation(reply, 'chat', { session_id: 'o2' }, ORG_A).say('hello')).reply,
    ).to.match(
      /^Hello! I can find our (courses|events) .*by date, price or audience \(for example "/,
    );
  });

  it("support answers from the organization's articles with a citation, and hands over what it cannot answer (support_escalated)", async () => {
    const { reply, knowledge, bus } = await sampleAssistant();
    await knowledge.createCollection('org_a', { name: 'help', kind: 'articles' });
    await knowledge.upsert('org_a', 'help', [
      {
        id: 'refunds',
        fields: {
          title: 'Refunds for cancelled events',
          body: 'When an event is cancelled, the refund reaches your card within 5 working days.',
          url: 'https://help.acme.example/refunds',
        },
      },
    ]);
    const answered = await new Conversation(reply, 'support', { session_id: 's1' }, ORG_A).say(
      'How do refunds for a cancelled event work?',
    );
    expect(links(answered.reply)).to.deep.equal([
      { title: 'Refunds for cancelled events', url: 'https://help.acme.example/refunds' },
    ]);
    expect(answered.reply).to.include('within 5 working days');
    expect(bus.published.filter((e) => e.type === 'support.escalated')).to.deep.equal([]);
    const conversation = new Conversation(
      reply,
      'support',
      { session_id: 's2', user_id: 'u-77' },
      ORG_A,
    );
    const unanswered = await conversation.say('My parrot swallowed the lanyard');
    // No unrelated article: a plain "can't help" and the offer of a person, no contact invented.
    expect(unanswered.reply).to.match(/^I can't help with that here/);
    expect(unanswered.reply).to.include('I can pass this to a person');
    expect(links(unanswered.reply)).to.deep.equal([]);
    expect(bus.published.filter((e) => e.type === 'support.escalated')).to.deep.equal([]);
    const accepted = await conversation.say('yes please');
    expect(accepted.reply).to.include('a person will follow up with you');
    expect(accepted.reply).to.not.match(/@|switchyard/i);
    const escalations = bus.published.filter((e) => e.type === 'support.escalated');
    expect(escalations.map((e) => [e.organization, e.data])).to.deep.equal([
      [
        'org_a',
        {
          sessionId: 's2',
          userId: 'u-77',
          agent: 'support',
          summary: 'My parrot swallowed the lanyard\nyes please',
          reason: 'offer_accepted',
        },
      ],
    ]);
  });

  it('keeps links to retrieved records only', () => {
    const allowed = new Set(['https://ok.example/a']);
    expect(
      keepRetrievedLinks(
        'See [A](https://ok.example/a) and [B](https://evil.example/b), ![img](https://x/y.png)',
        allowed,
      ),
    ).to.equal('See [A](https://ok.example/a) and B, ![img](https://x/y.png)');
  });

  describe("dates in the organization's time zone (fixed clock at a day boundary)", () => {
    // Sunday 6 Dec 23:30 in UTC is already Monday 7 Dec 00:30 in Berlin: "this weekend" is another weekend there.
    const BOUNDARY = new Date('2026-12-06T23:30:00Z');
    const GIGS = [
      {
        id: 'past',
        title: 'Sunday matinee',
        city: 'Berlin',
        tags: ['concert'],
        startsAt: '2026-12-06T15:00:00Z',
        url: 'https://gigs.example/past',
      },
      {
        id: 'late',
        title: 'Sunday late show',
        city: 'Berlin',
        tags: ['concert'],
        startsAt: '2026-12-06T23:50:00Z',
        url: 'https://gigs.example/late',
      },
      {
        id: 'next',
        title: 'Saturday gala',
        city: 'Berlin',
        tags: ['concert'],
        startsAt: '2026-12-12T19:00:00+01:00',
        url: 'https://gigs.example/next',
      },
    ];

    async function zonedAssistant() {
      const store = new InMemoryKnowledgeStore();
      const now = () => BOUNDARY;
      const { reply } = makeReply(50, () => ({
        knowledge: { store, retriever: new KnowledgeRetriever(store, now) },
      }));
      const knowledge = new KnowledgeService(
        store,
        new DataUpdatedPublisher(new RecordingBus(), silentLogger(), 'assistant'),
        now,
      );
      // No zone of its own: the organization's applies.
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      await knowledge.import(
        'org_a',
        'gigs',
        'jsonl',
        GIGS.map((g) => JSON.stringify(g)).join('\n'),
      );
      return reply;
    }

    const ask = async (
      reply: Awaited<ReturnType<typeof zonedAssistant>>,
      timeZone: string,
      text: string,
    ) =>
      links(
        (
          await new Conversation(
            reply,
            'chat',
            { time_zone: timeZone, session_id: `tz-${timeZone}-${text}` },
            ORG_A,
          ).say(text)
        ).reply,
      ).map((l) => l.title);

    it('"this weekend" is the weekend now ending in UTC, and the coming one in Europe/Berlin; a past event is never offered', async () => {
      const reply = await zonedAssistant();
      expect(await ask(reply, 'UTC', 'Any concerts in Berlin this weekend?')).to.deep.equal([
        'Sunday late show',
      ]);
      expect(
        await ask(reply, 'Europe/Berlin', 'Any concerts in Berlin this weekend?'),
      ).to.deep.equal(['Saturday gala']);
      expect(await ask(reply, 'UTC', 'Any concerts in Berlin in December?')).to.deep.equal([
        'Sunday late show',
        'Saturday gala',
      ]);
    });

    it('"tomorrow" and "next Saturday" follow the zone too; an unknown zone is refused naming the field', async () => {
      const reply = await zonedAssistant();
      expect(await ask(reply, 'UTC', 'concerts tomorrow?')).to.deep.equal([]);
      expect(await ask(reply, 'America/New_York', 'concerts today?')).to.deep.equal([
        'Sunday late show',
      ]);
      expect(await ask(reply, 'Europe/Berlin', 'concerts next Saturday?')).to.deep.equal([
        'Saturday gala',
      ]);
      const refused = await failure(
        new Conversation(reply, 'chat', { time_zone: 'Mars/Olympus' }, ORG_A).say(
          'concerts today?',
        ),
      );
      expect(refused.details).to.deep.equal([
        { field: '/time_zone', reason: 'must be an IANA time zone' },
      ]);
    });
  });
});
