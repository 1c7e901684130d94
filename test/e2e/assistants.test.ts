import { expect } from 'chai';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { api, callApi, type ApiOptions } from '../support/http';
import { E2E_ENV, mesh } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';
import {
  berlinConcertsThisWeekend,
  SAMPLE_COURSES_CSV,
  sampleEvents,
} from '../support/sample-knowledge';
import { secondOrganization } from './knowledge.test';

function session(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

describe('e2e: assistants', () => {
  it('answers the general chat assistant with the exact fields', async () => {
    const res = await api('/api/v2/ai/assistants/chat', {
      body: {
        user_id: 'u1',
        session_id: session('chat'),
        messages: [{ role: 'user', content: 'Hello! What concerts are coming up?' }],
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys(
      'reply',
      'session_id',
      'agent',
      'request_id',
      'model',
      'usage',
    );
    expect(res.body.agent).to.equal('chat');
    expect(res.body.reply).to.be.a('string').and.not.empty;
    expect(res.body.usage).to.have.all.keys('tokens_used', 'timestamp');
    expect(res.body.usage.tokens_used).to.be.a('number').greaterThan(0);
    expect(res.body.usage.timestamp).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });

  it("answers support questions from the organization's help articles", async () => {
    const help = session('help');
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name: help, kind: 'articles' } }))
        .status,
    ).to.equal(201);
    try {
      await api(`/api/v2/knowledge/collections/${help}/documents`, {
        body: {
          documents: [
            {
              id: 'refunds',
              title: 'Refunds',
              body: 'To get a refund for an order:\n1. Open Orders.\n2. Choose Request refund.',
              url: 'https://help.example/refunds',
            },
          ],
        },
      });
      const res = await api('/api/v2/ai/assistants/support', {
        body: {
          user_id: 'u2',
          session_id: session('support'),
          messages: [{ role: 'user', content: 'How do I get a refund for my order?' }],
        },
      });
      expect(res.status).to.equal(200);
      expect(res.body.agent).to.equal('support');
      expect(res.body.reply).to.include('[Refunds](https://help.example/refunds)');
      expect(res.body.reply).to.include('2. Choose Request refund.');
      expect(res.body).to.not.have.any.keys('step', 'next_step');
    } finally {
      await api(`/api/v2/knowledge/collections/${help}`, { method: 'DELETE' });
    }
  });

  it('walks the onboarding agent through steps 1 to 5, asking to confirm each', async () => {
    const sessionId = session('onboarding');
    const history: Array<{ role: string; content: string }> = [];
    const topics = [
      'I want to create a course on Python for data analysis',
      // Each next step starts by confirming the one before.
      'Confirmed. Modules: basics, pandas, visualisation',
      'Confirmed. Add notebooks and weekly assignments',
      'Confirmed. Quizzes after each module and a forum',
      'Confirmed. Launch in March with an email campaign',
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

  it('answers a later step at once (the client owns the step), naming the earlier steps still open', async () => {
    const res = await api('/api/v2/ai/assistants/onboarding', {
      body: {
        user_id: 'u7',
        session_id: session('skip'),
        step: 3,
        messages: [{ role: 'user', content: 'a course on statistics' }],
      },
    });
    expect(res.status, res.text).to.equal(200);
    expect([res.body.step, res.body.next_step]).to.deep.equal([3, 4]);
    expect(res.body.reply).to.include(
      'Not confirmed yet: step 1 (Course topic and objectives), step 2 (Modules and lessons)',
    );
  });

  it('validates step for onboarding and rejects it elsewhere', async () => {
    const base = {
      user_id: 'u4',
      session_id: session('v'),
      messages: [{ role: 'user', content: 'hi' }],
    };
    const missing = await api('/api/v2/ai/assistants/onboarding', { body: base });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.include('/step');
    const outOfRange = await api('/api/v2/ai/assistants/onboarding', {
      body: { ...base, step: 6 },
    });
    expect(outOfRange.status).to.equal(400);
    expect(outOfRange.body.error.details[0].field).to.equal('/step');
    const onChat = await api('/api/v2/ai/assistants/chat', { body: { ...base, step: 1 } });
    expect(onChat.status).to.equal(400);
    expect(onChat.body.error.details[0].field).to.equal('/step');
  });

  it('answers 404 for an unknown agent profile', async () => {
    const res = await api('/api/v2/ai/assistants/astrologer', {
      body: {
        user_id: 'u5',
        session_id: session('x'),
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });

  it('keeps session history server-side between calls', async () => {
    const sessionId = session('memory');
    const first = await api('/api/v2/ai/assistants/support', {
      body: {
        user_id: 'u6',
        session_id: sessionId,
        messages: [{ role: 'user', content: 'My order number is 48213 and it has not arrived' }],
      },
    });
    expect(first.status).to.equal(200);
    const second = await api('/api/v2/ai/assistants/support', {
      body: {
        user_id: 'u6',
        session_id: sessionId,
        messages: [{ role: 'user', content: 'Can you check the shipping status?' }],
      },
    });
    expect(second.status).to.equal(200);
    expect(second.body.reply).to.include('48213');
  });
});

describe('e2e: a long conversation on the builtin engine', function () {
  this.timeout(60_000);

  it('folds the turns past the kept history into a running summary (the builtin summarizer) instead of dropping them', async () => {
    const topics = ['Lisbon', 'Porto', 'Madrid', 'Seville', 'Valencia', 'Bilbao'];
    const messages = Array.from({ length: 55 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content:
        i < 6
          ? `I plan a concert trip to ${topics[i]} with my sister in May. We like jazz clubs near the old town.`
          : `Message ${i} about the plans.`,
    }));
    const sessionId = session('long');
    const res = await api('/api/v2/ai/assistants/chat', {
      body: { user_id: 'long', session_id: sessionId, messages },
    });
    expect(res.status, res.text).to.equal(200);
    const stored = await api(`/api/v2/assistants/sessions/${sessionId}`);
    expect(stored.body.messages).to.have.length(50);
    expect(
      stored.body.messages.some((m: { content: string }) => m.content.includes('Lisbon')),
    ).to.equal(false);
    // Extractive: sentences of the dropped turns.
    expect(stored.body.summary)
      .to.be.a('string')
      .and.match(
        /concert trip to (Lisbon|Porto|Madrid|Seville|Valencia|Bilbao)|jazz clubs near the old town/,
      );
    // Summarized, not the fallback excerpts ("user: ..." lines, kept only when no summarizer answers).
    expect(stored.body.summary).to.not.match(/^(user|assistant): /m);
  });
});

/** The scenario on a sample organization, through the gateway: its own data, its own agents, nobody else's. */
describe("e2e: assistants on an organization's own knowledge", function () {
  this.timeout(60_000);
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const events = `events-${suffix}`;
  const courses = `courses-${suffix}`;
  const now = new Date();
  const sample = sampleEvents(now);
  const links = (text: string) =>
    [...text.matchAll(/\[([^\]]+)\]\(([^)]+)\)/g)].map((m) => ({ title: m[1], url: m[2] }));

  before(async () => {
    for (const [name, kind] of [
      [events, 'events'],
      [courses, 'courses'],
    ]) {
      const created = await api('/api/v2/knowledge/collections', {
        body: { name, kind, timeZone: 'UTC' },
      });
      expect(created.status, created.text).to.equal(201);
    }
    // The files as a client sends them (curl --data-binary).
    const imported = await api(`/api/v2/knowledge/collections/${events}/import`, {
      rawBody: sample.map((e) => JSON.stringify(e)).join('\n'),
      contentType: 'application/x-ndjson',
    });
    expect(imported.body.count, imported.text).to.equal(300);
    const catalog = await api(`/api/v2/knowledge/collections/${courses}/import`, {
      rawBody: SAMPLE_COURSES_CSV,
      contentType: 'text/csv',
    });
    expect(catalog.body.count, catalog.text).to.equal(3);
  });

  after(async () => {
    for (const name of [events, courses])
      await api(`/api/v2/knowledge/collections/${name}`, { method: 'DELETE' });
    await api('/api/v2/agents/concierge', { method: 'DELETE' });
  });

  it('"concerts in Berlin this weekend" lists exactly the matching upcoming events, with links', async () => {
    const expected = berlinConcertsThisWeekend(sample, now);
    const res = await api('/api/v2/ai/assistants/chat', {
      body: {
        user_id: 'k1',
        session_id: session('kb'),
        messages: [{ role: 'user', content: 'Any concerts in Berlin this weekend?' }],
      },
    });
    expect(res.status, res.text).to.equal(200);
    expect(links(res.body.reply)).to.deep.equal(
      expected.map((e) => ({ title: e.title, url: e.url })),
    );
    if (expected.length === 0) expect(res.body.reply).to.match(/found nothing/);
  });

  it("onboarding keeps the user's own modules in the draft, not the catalogue's; the session shows it", async () => {
    const sessionId = session('onb-kb');
    const messages = [
      { role: 'user', content: 'I want to create a course on Python for data analysis' },
    ];
    const first = await api('/api/v2/ai/assistants/onboarding', {
      body: { user_id: 'k2', session_id: sessionId, step: 1, messages },
    });
    expect(first.status, first.text).to.equal(200);
    messages.push(
      { role: 'assistant', content: first.body.reply },
      { role: 'user', content: 'done' },
    );
    await api('/api/v2/ai/assistants/onboarding', {
      body: { user_id: 'k2', session_id: sessionId, step: 1, messages },
    });
    const second = await api('/api/v2/ai/assistants/onboarding', {
      body: {
        user_id: 'k2',
        session_id: sessionId,
        step: 2,
        messages: [{ role: 'user', content: 'Modules: Loading CSVs, Module 3 Dashboards' }],
      },
    });
    expect(second.body.reply).to.include('1. Loading CSVs').and.include('2. Module 3 Dashboards');
    // The organization's catalogue has a "Python for Data Analysis" course: none of it is offered as the user's.
    expect(second.body.reply).to.not.include('Variables and types');
    expect(links(second.body.reply)).to.deep.equal([]);
    const stored = await api(`/api/v2/assistants/sessions/${sessionId}`);
    expect(stored.status, stored.text).to.equal(200);
    expect(stored.body.onboarding).to.deep.include({ confirmed_steps: [1], current_step: 2 });
    expect(stored.body.onboarding.draft).to.deep.include({
      topic: 'Python for data analysis',
      modules: ['Loading CSVs', 'Module 3 Dashboards'],
    });
    expect(stored.body.onboarding.draft.notes['2']).to.deep.equal([
      'Modules: Loading CSVs, Module 3 Dashboards',
    ]);
    expect(stored.body.messages.at(-1).role).to.equal('assistant');
  });

  it('defines an agent of its own that answers at its name', async () => {
    const put = await api('/api/v2/agents/concierge', {
      method: 'PUT',
      body: {
        greeting: 'Welcome to the box office!',
        collections: [events],
        instructions: 'Be brief.',
      },
    });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({ name: 'concierge', base: 'chat', builtin: false });
    const hi = await api('/api/v2/ai/assistants/concierge', {
      body: {
        user_id: 'k3',
        session_id: session('cc'),
        messages: [{ role: 'user', content: 'hello' }],
      },
    });
    expect(hi.status, hi.text).to.equal(200);
    expect(hi.body).to.include({ reply: 'Welcome to the box office!', agent: 'concierge' });
    const listed = await api('/api/v2/agents');
    expect(listed.body.agents.map((a: { name: string }) => a.name)).to.include.members([
      'chat',
      'support',
      'onboarding',
      'concierge',
    ]);
  });

  it('a second organization sees none of it', async () => {
    const other = await secondOrganization();
    const m = await mesh();
    const asOther = (path: string, options = {}) => callApi(m.gatewayUrl, other, path, options);
    const res = await asOther('/api/v2/ai/assistants/chat', {
      body: {
        user_id: 'k4',
        session_id: session('kb2'),
        messages: [{ role: 'user', content: 'Any concerts in Berlin this weekend?' }],
      },
    });
    expect(res.status).to.equal(200);
    expect(res.text).to.not.include('tickets.example');
    expect(
      (
        await asOther('/api/v2/ai/assistants/concierge', {
          body: {
            user_id: 'k4',
            session_id: session('kb3'),
            messages: [{ role: 'user', content: 'hi' }],
          },
        })
      ).status,
    ).to.equal(404);
    expect(
      (await asOther(`/api/v2/knowledge/collections/${events}/documents/ev000`)).status,
    ).to.equal(404);
  });

  it('support offers a person for an unanswerable question; accepted, support_escalated reaches the webhook with its reason', async () => {
    const receiver = await new WebhookReceiver().start();
    const hook = await api('/api/webhooks', {
      body: { event: 'support_escalated', url: receiver.url },
    });
    expect(hook.status, hook.text).to.equal(201);
    const help = `help-${suffix}`;
    try {
      await api('/api/v2/knowledge/collections', { body: { name: help, kind: 'articles' } });
      await api(`/api/v2/knowledge/collections/${help}/documents`, {
        body: {
          documents: [
            {
              id: 'refunds',
              title: 'Refunds',
              body: 'Refunds reach your card in 5 days.',
              url: 'https://help.example/refunds',
            },
          ],
        },
      });
      const sessionId = session('esc');
      const say = (content: string) =>
        api('/api/v2/ai/assistants/support', {
          body: { user_id: 'k5', session_id: sessionId, messages: [{ role: 'user', content }] },
        });
      const res = await say('My parrot swallowed the lanyard');
      expect(res.body.reply).to.match(/^I can't help with that here/);
      expect(res.body.reply).to.include('I can pass this to a person');
      const accepted = await say('yes please');
      expect(accepted.body.reply).to.include('a person will follow up with you');
      const call = await waitFor(
        () => receiver.calls.find((c) => c.body?.sessionId === sessionId),
        10_000,
      );
      expect(call.body).to.include({
        event: 'support_escalated',
        sessionId,
        userId: 'k5',
        agent: 'support',
        summary: 'My parrot swallowed the lanyard\nyes please',
        reason: 'offer_accepted',
      });
    } finally {
      await api(`/api/v2/knowledge/collections/${help}`, { method: 'DELETE' });
      await api(`/api/webhooks/${hook.body.id}`, { method: 'DELETE' });
      await receiver.stop();
    }
  });
});

/** The calendar day (YYYY-MM-DD) of an instant in a zone, plus days. */
function localDay(instant: Date, timeZone: string, plusDays = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + plusDays)).toISOString().slice(0, 10);
}

describe("e2e: dates in the organization's time zone", function () {
  this.timeout(60_000);

  it('an admin sets the organization\'s time zone; "tomorrow" follows it at once, and an unknown zone is refused', async () => {
    const m = await mesh();
    const admin = { authorization: `Bearer ${m.adminToken}`, key: null };
    const id = `tz-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
    // Tokyo and Los Angeles: their "tomorrow" windows are 7 or 17 hours apart (gigs come every 4 hours).
    const created = await api('/api/v2/admin/organizations', {
      ...admin,
      body: { id, name: 'Zoned', monthlyTokenQuota: 1_000_000, timeZone: 'Asia/Tokyo' },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.timeZone).to.equal('Asia/Tokyo');
    const bad = await api(`/api/v2/admin/organizations/${id}`, {
      ...admin,
      method: 'PATCH',
      body: { timeZone: 'Mars/Olympus' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details).to.deep.equal([
      { field: '/timeZone', reason: 'must be an IANA time zone' },
    ]);
    const key = (
      await api(`/api/v2/admin/organizations/${id}/keys`, { ...admin, body: { name: 'e2e' } })
    ).body.key as string;
    const asOrg = (path: string, options = {}) => callApi(m.gatewayUrl, key, path, options);

    // A concert every 4 hours over the next 3 days, and one that has already started.
    const now = Date.now();
    const gigs = [-2, ...Array.from({ length: 18 }, (_, i) => 1 + 4 * i)].map((hours, i) => {
      const startsAt = new Date(now + hours * 3_600_000);
      return {
        id: `g${i}`,
        title: `Gig at ${startsAt.toISOString()}`,
        city: 'Berlin',
        tags: ['concert'],
        startsAt: startsAt.toISOString(),
        url: `https://gigs.example/g${i}`,
      };
    });
    expect(
      (await asOrg('/api/v2/knowledge/collections', { body: { name: 'gigs', kind: 'events' } }))
        .body.timeZone,
    ).to.equal(null);
    const imported = await asOrg('/api/v2/knowledge/collections/gigs/import', {
      rawBody: gigs.map((g) => JSON.stringify(g)).join('\n'),
      contentType: 'application/x-ndjson',
    });
    expect(imported.status, imported.text).to.equal(200);

    const tomorrowIn = async (timeZone: string) => {
      const res = await asOrg('/api/v2/ai/assistants/chat', {
        body: {
          user_id: 'tz',
          session_id: `tz-${timeZone}`,
          messages: [{ role: 'user', content: 'Any concerts tomorrow?' }],
        },
      });
      expect(res.status, res.text).to.equal(200);
      const listed = [...res.body.reply.matchAll(/\[([^\]]+)\]\(([^)]+)\)/g)].map(
        (l: RegExpMatchArray) => l[2],
      );
      const expected = gigs
        .filter(
          (g) => localDay(new Date(g.startsAt), timeZone) === localDay(new Date(), timeZone, 1),
        )
        .map((g) => g.url);
      expect(expected.length, 'some gigs fall on tomorrow').to.be.greaterThan(0);
      expect(listed).to.deep.equal(expected);
      return listed;
    };
    const east = await tomorrowIn('Asia/Tokyo');
    const changed = await api(`/api/v2/admin/organizations/${id}`, {
      ...admin,
      method: 'PATCH',
      body: { timeZone: 'America/Los_Angeles' },
    });
    expect(changed.status, changed.text).to.equal(200);
    const west = await tomorrowIn('America/Los_Angeles');
    expect(west).to.not.deep.equal(east);
    expect([...east, ...west]).to.not.include('https://gigs.example/g0');
  });
});

describe("e2e: the issue's scenario at a fixed current date", function () {
  this.timeout(60_000);
  // Saturday 21 Nov 2026, 21:00 UTC: the weekend has begun; its Saturday 20:00 concert is already past.
  const FIXED = new Date('2026-11-21T21:00:00Z');
  let fixed: EmbeddedMesh;
  const call = (path: string, options?: ApiOptions) =>
    callApi(fixed.gatewayUrl, fixed.apiKey, path, options);

  before(async () => {
    fixed = await startEmbeddedMesh(E2E_ENV, silentLogger(), { now: () => FIXED });
  });

  after(async () => fixed?.stop());

  it('"concerts in Berlin this weekend" lists exactly the upcoming matching events with links, never a past one', async () => {
    const sample = sampleEvents(FIXED);
    expect(
      (await call('/api/v2/knowledge/collections', { body: { name: 'events', kind: 'events' } }))
        .status,
    ).to.equal(201);
    const imported = await call('/api/v2/knowledge/collections/events/import', {
      rawBody: sample.map((e) => JSON.stringify(e)).join('\n'),
      contentType: 'application/x-ndjson',
    });
    expect(imported.body.count, imported.text).to.equal(300);
    const expected = berlinConcertsThisWeekend(sample, FIXED);
    expect(expected.length, 'the sample has upcoming ones').to.be.greaterThan(0);
    const res = await call('/api/v2/ai/assistants/chat', {
      body: {
        user_id: 'f1',
        session_id: 'fixed-1',
        messages: [{ role: 'user', content: 'Any concerts in Berlin this weekend?' }],
      },
    });
    expect(res.status, res.text).to.equal(200);
    const links = [...(res.body.reply as string).matchAll(/\[([^\]]+)\]\(([^)]+)\)/g)].map((m) => ({
      title: m[1],
      url: m[2],
    }));
    expect(links).to.deep.equal(expected.map((e) => ({ title: e.title, url: e.url })));
    // The weekend's Saturday 20:00 concert (ev000) started before "now": not offered.
    expect(res.body.reply).to.not.include('https://tickets.example/ev000');
  });
});
