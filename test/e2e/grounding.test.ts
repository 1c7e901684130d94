import { expect } from 'chai';
import { FakeLlmServer, readEvents, silentLogger, waitFor } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { E2E_ENV } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';

const KEY = 'sk-fake-grounding';
const UPSTREAM = 'up-inventor';
/** A hosted model as an organization would register it: priced, through the model registry. */
const HOSTED = 'hosted-gpt';

const PRICES_URL = 'https://boulderhalle.example/preise';
const INTRO_URL = 'https://boulderhalle.example/kurse/intro';
const ESCALATION = {
  message: 'Our front desk takes it from here and calls you back within a day.',
  contact: '+49 30 5550123 or desk@boulderhalle.example',
  channel: 'phone',
};

interface StoredTurn {
  role: string;
  content: string;
  grounding?: { model: string; overruled: boolean; issues: Array<{ kind: string; value: string }> };
}

/**
 * The grounding check through the gateway: a hosted OpenAI-compatible model (a local upstream
 * that answers what each test scripts) is overruled whenever it states a price, date, phone
 * number or link the turn's facts do not hold; the service's own answer goes out instead, the
 * stored turn says so and the metric counts it. Hand-over text and contacts are the service's,
 * with every model.
 */
describe('e2e: grounded replies (a hosted model that invents facts)', function () {
  this.timeout(60_000);
  let fake: FakeLlmServer;
  let mesh: EmbeddedMesh;
  let receiver: WebhookReceiver;
  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);
  const intro = new Date(Date.now() + 5 * 86_400_000);
  intro.setUTCHours(17, 0, 0, 0);

  before(async () => {
    fake = new FakeLlmServer(KEY);
    const baseUrl = await fake.start();
    receiver = await new WebhookReceiver().start();
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        FAKE_GROUNDING_KEY: KEY,
        MODEL_REGISTRY_JSON: JSON.stringify({
          defaultModel: HOSTED,
          models: [
            { id: 'builtin', provider: 'builtin' },
            {
              id: HOSTED,
              provider: 'openai-compatible',
              baseUrl,
              apiKeyEnv: 'FAKE_GROUNDING_KEY',
              upstreamModel: UPSTREAM,
              contextWindow: 16000,
              maxOutputTokens: 500,
              inputPricePerMillion: 1,
              outputPricePerMillion: 2,
              capabilities: ['chat'],
            },
          ],
        }),
        // Configuring a model as content's default switches no assistant.
        DEFAULT_MODEL: HOSTED,
      },
      silentLogger(),
    );
    const created = async (path: string, body: object, method = 'POST') => {
      const res = await api(path, { method, body });
      expect(res.status, res.text).to.be.within(200, 201);
    };
    await created('/api/v2/knowledge/collections', { name: 'preise', kind: 'articles' });
    await created('/api/v2/knowledge/collections/preise/documents', {
      documents: [
        {
          id: 'prices',
          title: 'Prices',
          body: 'Day pass: 14 EUR. Ten-visit card: 120 EUR. Shoe rental: 4 EUR.',
          url: PRICES_URL,
        },
      ],
    });
    await created('/api/v2/knowledge/collections', { name: 'kurse', kind: 'events' });
    await created('/api/v2/knowledge/collections/kurse/documents', {
      documents: [
        {
          id: 'intro',
          title: 'Intro to bouldering',
          city: 'Berlin',
          venue: 'Boulderhalle Nord',
          startsAt: intro.toISOString(),
          timeZone: 'Europe/Berlin',
          price: 35,
          currency: 'EUR',
          url: INTRO_URL,
          tags: ['course'],
          description: 'Two hours with a coach: falling, footwork, first problems.',
        },
      ],
    });
    await created('/api/v2/agents/support', { escalation: ESCALATION }, 'PUT');
    const hook = await api('/api/webhooks', {
      body: { event: 'support_escalated', url: receiver.url },
    });
    expect(hook.status, hook.text).to.equal(201);
  });

  after(async () => {
    await mesh?.stop();
    await receiver?.stop();
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  const newSession = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

  async function ask(
    agent: string,
    content: string,
    model?: string,
    sessionId = newSession(agent),
  ) {
    const res = await api(`/api/v2/ai/assistants/${agent}`, {
      body: {
        user_id: 'climber',
        session_id: sessionId,
        messages: [{ role: 'user', content }],
        ...(model ? { model } : {}),
      },
    });
    expect(res.status, res.text).to.equal(200);
    return { ...(res.body as { reply: string; model: string }), sessionId };
  }

  async function lastTurn(sessionId: string): Promise<StoredTurn> {
    const res = await api(`/api/v2/assistants/sessions/${sessionId}`);
    expect(res.status, res.text).to.equal(200);
    return (res.body.messages as StoredTurn[]).at(-1)!;
  }

  async function overruledCount(): Promise<number> {
    const text = await (await fetch(`${mesh.gatewayUrl}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(`assistant_grounding_checks_total{model="${HOSTED}",outcome="overruled"}`),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  }

  const inventions: Array<{
    what: string;
    question: string;
    text: string;
    kind: string;
    invented: string;
  }> = [
    {
      what: 'a price',
      question: 'Day pass prices?',
      text: 'A day pass costs 19 EUR.',
      kind: 'price',
      invented: '19 EUR',
    },
    {
      what: 'a date',
      question: 'When is the intro to bouldering?',
      text: 'The Intro to bouldering is on 3 March 2031 at 18:00.',
      kind: 'date',
      invented: '2031',
    },
    {
      what: 'a phone number',
      question: 'Day pass prices?',
      text: 'A day pass costs 14 EUR; call +49 30 1234567 to reserve.',
      kind: 'phone',
      invented: '1234567',
    },
    {
      what: 'a link',
      question: 'Day pass prices?',
      text: 'A day pass costs 14 EUR, book at https://cheap-passes.example/day.',
      kind: 'url',
      invented: 'cheap-passes.example',
    },
  ];

  for (const invention of inventions) {
    it(`overrules a model that invents ${invention.what}: the service's own answer goes out, the turn and the metric say so`, async () => {
      const agent = invention.kind === 'date' ? 'chat' : 'support';
      const before = await overruledCount();
      fake.script(UPSTREAM, { kind: 'ok', text: invention.text });
      const answered = await ask(agent, invention.question, HOSTED);
      expect(fake.requestsFor(UPSTREAM)).to.have.length(1);
      expect(answered.model).to.equal(HOSTED);
      expect(answered.reply).to.not.include(invention.invented);
      // Exactly what the builtin engine answers the same question.
      const builtin = await ask(agent, invention.question, 'builtin');
      expect(answered.reply).to.equal(builtin.reply);
      const turn = await lastTurn(answered.sessionId);
      expect(turn.content).to.equal(answered.reply);
      expect(turn.grounding).to.deep.include({ model: HOSTED, overruled: true });
      expect(turn.grounding!.issues.map((i) => i.kind)).to.include(invention.kind);
      expect(await overruledCount()).to.equal(before + 1);
    });
  }

  it('lets a grounded reply through in the model’s words, with the sources linked by the service', async () => {
    fake.script(UPSTREAM, {
      kind: 'ok',
      text: 'A day pass is 14 EUR, and shoe rental adds 4 EUR.',
    });
    const answered = await ask('support', 'Day pass prices?', HOSTED);
    expect(answered.reply).to.equal(
      `A day pass is 14 EUR, and shoe rental adds 4 EUR.\n\nSources: [Prices](${PRICES_URL})`,
    );
    const turn = await lastTurn(answered.sessionId);
    expect(turn.grounding).to.deep.equal({ model: HOSTED, overruled: false, issues: [] });
  });

  it('never streams an invented phone number: the stream carries the checked reply only', async () => {
    fake.script(UPSTREAM, { kind: 'ok', text: 'Call our hotline at +49 30 9998877 for prices.' });
    const response = await fetch(`${mesh.gatewayUrl}/api/v2/ai/assistants/support`, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        user_id: 'climber',
        session_id: newSession('stream'),
        model: HOSTED,
        stream: true,
        messages: [{ role: 'user', content: 'Day pass prices?' }],
      }),
    });
    const events = await readEvents(response);
    const streamed = events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text as string)
      .join('');
    expect(streamed).to.not.include('9998877');
    expect(streamed).to.include('14 EUR');
    expect(events.find((e) => e.event === 'done')!.data.reply).to.equal(streamed);
  });

  for (const model of ['builtin', HOSTED]) {
    it(`an escalation carries the hand-over text and the contacts with ${model}, and support_escalated fires`, async () => {
      // The issue's reply of a tiny model: fluent, and nothing of the hand-over in it.
      fake.script(UPSTREAM, {
        kind: 'ok',
        text: "I'll give you a map of the world to plan your next destination.",
      });
      const answered = await ask('support', 'I want to talk to a real person please', model);
      expect(answered.reply).to.include(ESCALATION.message);
      expect(answered.reply).to.include(ESCALATION.contact);
      const call = await waitFor(
        () => receiver.calls.find((c) => c.body?.sessionId === answered.sessionId),
        10_000,
      );
      expect(call.body).to.include({ event: 'support_escalated', reason: 'requested_by_user' });
    });
  }

  it('keeps the assistants on builtin when a model is configured (DEFAULT_MODEL), until a profile names it', async () => {
    const unnamed = await ask('chat', 'Hello!');
    expect(unnamed.model).to.equal('builtin');
    expect(fake.requestsFor(UPSTREAM)).to.have.length(0);
    const profile = await api('/api/v2/agents/front-desk', {
      method: 'PUT',
      body: { base: 'chat', model: HOSTED },
    });
    expect(profile.status, profile.text).to.equal(200);
    fake.script(UPSTREAM, { kind: 'ok', text: 'Hello! Ask me about our courses and prices.' });
    const named = await ask('front-desk', 'Hello!');
    expect(named.model).to.equal(HOSTED);
    expect(named.reply).to.equal('Hello! Ask me about our courses and prices.');
  });
});
