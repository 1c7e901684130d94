/**
 * One regression test per defect of the assistants issue, through the gateway, on organizations
 * created and filled the way a customer does it (admin API, knowledge import, agent profiles), at a
 * fixed current date: Wednesday 12 May 2027, 09:00 UTC ("this weekend" is 15-16 May).
 */
import { expect } from 'chai';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { callApi, organizationKey, type ApiOptions, type ApiResponse } from '../support/http';
import { E2E_ENV } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';

const NOW = new Date('2027-05-12T09:00:00Z');

const event = (
  id: string,
  title: string,
  city: string,
  startsAt: string,
  price: number,
  tags: string[],
  description: string,
  timeZone?: string,
) => ({
  id,
  title,
  city,
  venue: `${title} hall`,
  startsAt,
  ...(timeZone ? { timeZone } : {}),
  price,
  currency: 'EUR',
  tags,
  description,
  url: `https://box.example/${id}`,
});

/** A box office in Spain and Portugal; the organization's zone is Madrid's. */
const EVENTS = [
  event(
    'a1',
    'Puppet Theatre Matinee',
    'Madrid',
    '2027-05-15T12:00:00+02:00',
    9,
    ['theatre', 'kids'],
    'Hand puppets retell old fables. Suitable for ages 4 to 9.',
  ),
  event(
    'a2',
    'Rooftop Jazz Session',
    'Madrid',
    '2027-05-15T22:00:00+02:00',
    30,
    ['concert'],
    'A trio on the rooftop. Adults only.',
  ),
  event(
    'a3',
    'Family Science Show',
    'Madrid',
    '2027-05-16T11:00:00+02:00',
    14,
    ['workshop', 'kids'],
    'Explosions and bubbles for the whole family. Ages 6 and up.',
  ),
  event(
    'a4',
    'Opera Gala Night',
    'Madrid',
    '2027-05-16T20:00:00+02:00',
    85,
    ['concert'],
    'Arias with the city orchestra.',
  ),
  event(
    'a5',
    'Madrid Kids Circus',
    'Madrid',
    '2027-05-22T17:00:00+02:00',
    12,
    ['circus', 'kids'],
    'Jugglers and clowns.',
  ),
  event(
    'b1',
    'Cathedral Organ Recital',
    'Barcelona',
    '2027-05-15T19:00:00+02:00',
    20,
    ['concert'],
    'Bach on the great organ.',
  ),
  event(
    'b2',
    'Harbour Brass Band',
    'Barcelona',
    '2027-05-23T18:00:00+02:00',
    15,
    ['concert'],
    'Marches by the sea.',
  ),
  event(
    'b3',
    'Barcelona Kids Choir',
    'Barcelona',
    '2027-05-16T10:00:00+02:00',
    8,
    ['concert', 'kids'],
    'Children sing spring songs.',
  ),
  event(
    'l1',
    'Lisbon Guitar Night',
    'Lisbon',
    '2027-05-15T20:00:00+00:00',
    25,
    ['concert'],
    'Portuguese guitar in an old cellar.',
    'Europe/Lisbon',
  ),
  event(
    'v1',
    'Valencia Kids Puppets',
    'Valencia',
    '2027-05-15T11:00:00+02:00',
    7,
    ['theatre', 'kids'],
    'Puppets by the beach.',
  ),
];

/** A shop's help centre: one article with metadata lines and several passages. */
const ARTICLES = [
  {
    id: 'refunds',
    title: 'Refund policy',
    url: 'https://help.shop.example/refunds',
    tags: ['refund', 'policy'],
    body: [
      'Unused items can be returned within 30 days.',
      '',
      'To get a refund:',
      '1. Open Orders and choose the order.',
      '2. Select Request refund.',
      '3. Send the parcel with the prepaid label.',
      '',
      'The refund reaches your card within 5 business days after the parcel arrives.',
      '',
      'Tags: refund, policy',
    ].join('\n'),
  },
  {
    id: 'access',
    title: 'Accessibility in our store',
    url: 'https://help.shop.example/access',
    tags: ['accessibility'],
    body: 'Our store has step-free access and a lift. You can bring a companion free of charge.',
  },
  {
    id: 'delivery',
    title: 'Delivery times',
    url: 'https://help.shop.example/delivery',
    tags: ['delivery'],
    body: 'Parcels arrive in 2 to 4 business days. Express parcels arrive the next day.',
  },
  {
    id: 'address',
    title: 'Changing the delivery address',
    url: 'https://help.shop.example/address',
    tags: ['address'],
    body: [
      'You can change the delivery address of an order until the order ships.',
      '',
      '1. Open Orders.',
      '2. Choose Edit address and save.',
    ].join('\n'),
  },
];

const ESCALATION = {
  message: 'A member of the Shop Care team will write to you today.',
  contact: 'care@shop.example',
  channel: 'email',
};

const LINK = /\[([^\]]+)\]\(([^)]+)\)/g;
const titlesIn = (reply: string) => [...reply.matchAll(LINK)].map((m) => m[1]);

describe('e2e: the defects of the assistants issue, each through the gateway', function () {
  this.timeout(60_000);
  let mesh: EmbeddedMesh;
  let receiver: WebhookReceiver;
  const keys: Record<'box' | 'shop' | 'empty' | 'academy', string> = {
    box: '',
    shop: '',
    empty: '',
    academy: '',
  };

  const as =
    (org: keyof typeof keys) =>
    (path: string, options: ApiOptions = {}): Promise<ApiResponse> =>
      callApi(mesh.gatewayUrl, keys[org], path, options);

  let sessions = 0;
  /** A conversation with one of an organization's agents; each message is sent alone (the server keeps the history). */
  function conversation(org: keyof typeof keys, agent: string) {
    const sessionId = `defects-${org}-${agent}-${++sessions}`;
    return {
      sessionId,
      say: async (content: string, step?: number) => {
        const res = await as(org)(`/api/v2/ai/assistants/${agent}`, {
          body: {
            user_id: 'customer-1',
            session_id: sessionId,
            messages: [{ role: 'user', content }],
            ...(step !== undefined ? { step } : {}),
          },
        });
        expect(res.status, res.text).to.equal(200);
        return res.body as { reply: string; step?: number; next_step?: number | null };
      },
    };
  }

  /**
   * The support_escalated webhooks of a session once `expected` of them arrived (they come through
   * the bus, after the reply) and no other follows.
   */
  async function escalations(
    sessionId: string,
    expected: number,
  ): Promise<Array<Record<string, unknown>>> {
    const of = () =>
      receiver.calls
        .map((c) => c.body as Record<string, unknown>)
        .filter((b) => b?.sessionId === sessionId);
    await waitFor(() => of().length >= expected, 10_000);
    let seen = -1;
    while (of().length !== seen) {
      seen = of().length;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return of();
  }

  before(async () => {
    // The demo data set is on (as with npm start): it must reach the dev organization only.
    const { DEMO_DATA: _demo, ...env } = E2E_ENV;
    mesh = await startEmbeddedMesh(
      { ...env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      silentLogger(),
      { now: () => NOW },
    );
    receiver = await new WebhookReceiver().start();
    for (const [name, timeZone] of [
      ['box', 'Europe/Madrid'],
      ['shop', 'Europe/Vienna'],
      ['empty', 'UTC'],
      ['academy', 'Europe/London'],
    ] as const) {
      keys[name] = await organizationKey(mesh, `defects-${name}`, timeZone);
      const hook = await as(name)('/api/webhooks', {
        body: { event: 'support_escalated', url: receiver.url },
      });
      expect(hook.status, hook.text).to.equal(201);
    }
    const load = async (org: keyof typeof keys, name: string, kind: string, rows: object[]) => {
      expect(
        (await as(org)('/api/v2/knowledge/collections', { body: { name, kind } })).status,
      ).to.equal(201);
      const imported = await as(org)(`/api/v2/knowledge/collections/${name}/import`, {
        rawBody: rows.map((r) => JSON.stringify(r)).join('\n'),
        contentType: 'application/x-ndjson',
      });
      expect(imported.status, imported.text).to.equal(200);
    };
    await load('box', 'events', 'events', EVENTS);
    await load('shop', 'help', 'articles', ARTICLES);
    const profile = await as('shop')('/api/v2/agents/support', {
      method: 'PUT',
      body: { escalation: ESCALATION },
    });
    expect(profile.status, profile.text).to.equal(200);
  });

  after(async () => {
    await receiver?.stop();
    await mesh?.stop();
  });

  describe('1. no vendor data in anyone’s answers', () => {
    it('an organization with no knowledge says so; the demo data reaches the dev organization only', async () => {
      const chat = await conversation('empty', 'chat').say('Any concerts in Berlin this weekend?');
      expect(chat.reply).to.match(/^I don't have any event information yet/);
      expect(titlesIn(chat.reply)).to.deep.equal([]);
      const support = await conversation('empty', 'support').say('How do I get a refund?');
      expect(support.reply).to.match(/^I can't help with that here/);
      for (const reply of [chat.reply, support.reply])
        expect(reply).to.not.match(/switchyard|Philharmon|Python for Data Analysis/i);
      // The same question in the dev organization of embedded mode: answered from the imported demo set.
      const dev = await callApi(mesh.gatewayUrl, mesh.apiKey, '/api/v2/ai/assistants/chat', {
        body: {
          user_id: 'dev',
          session_id: 'defects-dev',
          messages: [{ role: 'user', content: 'Any concerts in Berlin?' }],
        },
      });
      expect(dev.status, dev.text).to.equal(200);
      expect(dev.body.reply).to.match(/^Here are \d+ concerts in Berlin:\n1\. /);
      const collections = await callApi(
        mesh.gatewayUrl,
        mesh.apiKey,
        '/api/v2/knowledge/collections',
      );
      expect(collections.text).to.include('demo-events');
    });

    it("the hand-over names the organization's own contact, or none", async () => {
      const shop = conversation('shop', 'support');
      const handed = await shop.say('I want to talk to a person');
      expect(handed.reply)
        .to.include(ESCALATION.message)
        .and.include('by email at care@shop.example');
      const empty = await conversation('empty', 'support').say('I want to talk to a person');
      expect(empty.reply).to.include('a person will follow up with you');
      expect(empty.reply).to.not.match(/@|switchyard/i);
    });
  });

  describe('2. conversation state a follow-up can use', () => {
    it('a follow-up inherits the city and dates and adds its own audience and price', async () => {
      const chat = conversation('box', 'chat');
      const first = await chat.say("What's on this weekend in Madrid?");
      expect(titlesIn(first.reply)).to.deep.equal([
        'Puppet Theatre Matinee',
        'Rooftop Jazz Session',
        'Family Science Show',
        'Opera Gala Night',
      ]);
      const kids = await chat.say('anything for kids under 20 euros?');
      expect(titlesIn(kids.reply)).to.deep.equal(['Puppet Theatre Matinee', 'Family Science Show']);
      const other = await chat.say('and in Barcelona?');
      expect(titlesIn(other.reply)).to.deep.equal(['Barcelona Kids Choir']);
    });

    it('"the second one" and "the cheaper one" are answered from that item', async () => {
      const chat = conversation('box', 'chat');
      await chat.say('concerts in Madrid this weekend');
      const second = await chat.say('tell me more about the second one');
      expect(second.reply).to.match(/^\[Opera Gala Night\]\(https:\/\/box\.example\/a4\): /);
      expect(second.reply).to.include('Arias with the city orchestra.');
      expect(titlesIn(second.reply)).to.deep.equal(['Opera Gala Night']);
      const cheaper = await chat.say('how much is the cheaper one?');
      expect(cheaper.reply).to.match(/^\[Rooftop Jazz Session\]\([^)]+\): Price: 30 EUR\./);
    });

    it('"what ages is X for?" is answered from X’s description', async () => {
      const reply = (
        await conversation('box', 'chat').say('What ages is Puppet Theatre Matinee for?')
      ).reply;
      expect(reply).to.match(/^\[Puppet Theatre Matinee\]\([^)]+\): Suitable for ages 4 to 9\./);
      expect(titlesIn(reply)).to.deep.equal(['Puppet Theatre Matinee']);
    });

    it('a Spanish question is dated right: "este fin de semana" is this weekend', async () => {
      const reply = (
        await conversation('box', 'chat').say(
          '¿Qué conciertos hay en Barcelona este fin de semana?',
        )
      ).reply;
      expect(titlesIn(reply)).to.deep.equal(['Cathedral Organ Recital', 'Barcelona Kids Choir']);
    });

    it("an event is shown in its venue's time zone, not the organization's", async () => {
      const reply = (await conversation('box', 'chat').say('concerts in Lisbon this weekend'))
        .reply;
      expect(titlesIn(reply)).to.deep.equal(['Lisbon Guitar Night']);
      // 20:00 UTC is 21:00 in Lisbon (summer time), 22:00 in Madrid.
      expect(reply).to.include('Sat 15 May 2027, 21:00');
      expect(reply).to.not.include('22:00');
    });

    it('replies never show an empty slot ("found for in Madrid") or a stemmed word', async () => {
      const chat = conversation('box', 'chat');
      const city = (await chat.say('in Madrid')).reply;
      expect(city).to.not.match(/ for in |found for|about ""|\s\s/);
      const none = (
        await conversation('box', 'chat').say('Is the park venue ok for bringing a stroller?')
      ).reply;
      expect(none).to.match(/^I couldn't find any /);
      expect(none).to.include('"park bringing stroller"');
      expect(none).to.not.match(/\b(venu|bring|strol)\b/);
    });
  });

  describe('3. support that escalates when it should', () => {
    it('greetings and small talk never escalate', async () => {
      const support = conversation('shop', 'support');
      for (const text of ['hello', 'Hi there!', 'thanks a lot', '¡Hola!'])
        expect((await support.say(text)).reply).to.not.include(ESCALATION.message);
      expect(await escalations(support.sessionId, 0)).to.deep.equal([]);
    });

    it('anger and billing disputes escalate at once, with the reason', async () => {
      const billing = conversation('shop', 'support');
      const charged = await billing.say('I was charged twice for my order and nobody answers!!');
      expect(charged.reply).to.include(ESCALATION.message);
      const angry = conversation('shop', 'support');
      await angry.say('This is ridiculous, my parcel is a week late');
      expect((await escalations(billing.sessionId, 1)).map((e) => e.reason)).to.deep.equal([
        'billing_dispute',
      ]);
      expect((await escalations(angry.sessionId, 1)).map((e) => e.reason)).to.deep.equal([
        'frustration',
      ]);
    });

    it('a bare order number given after the agent asked for it is taken', async () => {
      const support = conversation('shop', 'support');
      const handed = await support.say('Can I speak to a human please?');
      expect(handed.reply).to.include('what is your order or booking number?');
      const given = await support.say('B-7731');
      expect(given.reply).to.match(/^Thanks, I've noted reference \*\*B-7731\*\*/);
      expect(given.reply).to.include('I have added it to your case for our team.');
      expect((await escalations(support.sessionId, 1)).map((e) => e.reason)).to.deep.equal([
        'requested_by_user',
      ]);
    });

    it('"Can I bring my dog?" gets "I can\'t help with that here", not an unrelated article', async () => {
      const reply = (await conversation('shop', 'support').say('Can I bring my dog?')).reply;
      expect(reply).to.match(/^I can't help with that here/);
      expect(reply).to.include('I can pass this to a person on our team (by email)');
      expect(titlesIn(reply)).to.deep.equal([]);
    });

    it('an article is quoted, not dumped, never with its metadata; a follow-up quotes what it asks', async () => {
      const support = conversation('shop', 'support');
      const how = (await support.say('How do I get a refund?')).reply;
      expect(how).to.include('[Refund policy](https://help.shop.example/refunds)');
      expect(how).to.include('2. Select Request refund.');
      expect(how).to.not.include('Tags:');
      expect(how).to.not.include('within 5 business days');
      const when = (await support.say('How long until the money reaches my card?')).reply;
      expect(when).to.include('The refund reaches your card within 5 business days');
      expect(when).to.not.include('2. Select Request refund.');
      expect(when).to.not.include('Tags:');
    });
    it("a question naming an article's subject finds it, whatever else it says in other words", async () => {
      const reply = (
        await conversation('shop', 'support').say('Can I get a refund on shoes I never wore?')
      ).reply;
      expect(titlesIn(reply)).to.deep.equal(['Refund policy']);
      expect(reply).to.not.match(/^I can't help with that here/);
    });

    it('"how do I ...?" is answered with the steps, not only the paragraph that matches best', async () => {
      const reply = (
        await conversation('shop', 'support').say('How do I change the address of my order?')
      ).reply;
      expect(titlesIn(reply)).to.deep.equal(['Changing the delivery address']);
      expect(reply).to.include('until the order ships');
      expect(reply).to.include('2. Choose Edit address and save.');
    });
  });

  describe('4. onboarding as the interface says', () => {
    it('a step whose earlier step is unconfirmed answers 200 with next_step and names the open step', async () => {
      const onboarding = conversation('academy', 'onboarding');
      const step2 = await onboarding.say('Module 1 Colour wheels\nModule 3 Dashboards', 2);
      expect([step2.step, step2.next_step]).to.deep.equal([2, 3]);
      expect(step2.reply).to.include('Not confirmed yet: step 1 (Course topic and objectives)');
      const last = await onboarding.say('Launch on 1 June with a newsletter', 5);
      expect([last.step, last.next_step]).to.deep.equal([5, null]);
    });

    it('keeps what the user wrote verbatim in the draft and understands the topic however phrased', async () => {
      const onboarding = conversation('academy', 'onboarding');
      const first = await onboarding.say('Watercolour painting for retirees', 1);
      expect(first.reply).to.include('Your course: **Watercolour painting** (for retirees)');
      await onboarding.say('done', 1);
      const modules = await onboarding.say('Module 1 Paper and brushes\nModule 3 Dashboards', 2);
      expect(modules.reply)
        .to.include('1. Module 1 Paper and brushes')
        .and.include('2. Module 3 Dashboards');
      const stored = await as('academy')(`/api/v2/assistants/sessions/${onboarding.sessionId}`);
      expect(stored.body.onboarding.draft).to.deep.include({
        topic: 'Watercolour painting',
        audience: 'retirees',
        modules: ['Module 1 Paper and brushes', 'Module 3 Dashboards'],
        openSteps: [],
      });
      expect(stored.body.onboarding.draft.notes).to.deep.equal({
        '1': ['Watercolour painting for retirees'],
        '2': ['Module 1 Paper and brushes\nModule 3 Dashboards'],
      });
      const phrased = await conversation('academy', 'onboarding').say(
        "I'd like to teach knitting to beginners",
        1,
      );
      expect(phrased.reply).to.include('Your course: **knitting** (for beginners)');
    });
  });

  describe('5. profiles that promise only what they do', () => {
    it('a model the registry lacks is refused at save time with 400 on /model', async () => {
      const res = await as('academy')('/api/v2/agents/tutor', {
        method: 'PUT',
        body: { model: 'gpt-4o', instructions: 'Be kind.' },
      });
      expect(res.status).to.equal(400);
      expect(res.body.error.details[0].field).to.equal('/model');
      expect(res.body.error.details[0].reason).to.match(
        /^unknown model 'gpt-4o'; models with the chat capability: builtin/,
      );
      expect((await as('academy')('/api/v2/agents/tutor')).status).to.equal(404);
    });

    it("the answer says the builtin engine ignores instructions and tools; custom steps answer from the step's purpose", async () => {
      const saved = await as('academy')('/api/v2/agents/enrol', {
        method: 'PUT',
        body: {
          instructions: 'Always answer in rhymes.',
          steps: [
            {
              title: 'Pick a course',
              goal: 'Find the course the learner wants.',
              confirm: 'the course is chosen',
            },
            { title: 'Pay', goal: 'Card or invoice.', confirm: 'payment is arranged' },
          ],
        },
      });
      expect(saved.status, saved.text).to.equal(200);
      expect(saved.body.servingModel).to.deep.include({
        model: 'builtin',
        ignored: ['instructions', 'tools'],
      });
      const reply = (await conversation('academy', 'enrol').say('hi', 1)).reply;
      expect(reply).to.include(
        'This step is about pick a course: find the course the learner wants.',
      );
      expect(reply).to.include('When this step is complete (the course is chosen), reply "done".');
      // Not the raw fields one after another.
      expect(reply).to.not.include('Find the course the learner wants.\n\nthe course is chosen');
    });
  });
});
