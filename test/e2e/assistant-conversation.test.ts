/**
 * Conversation on the builtin engine with phrasing it was not built on, through the gateway, for
 * three businesses set up as their owners would (admin API, imports of their own files): a bicycle
 * repair shop in Leipzig (English and German), a ticket seller in Hamburg and Munich (German and
 * English), a language school in Madrid (Spanish and French): the data of the development set's
 * follow-up businesses (test/eval/assistants/follow-ups.ts). The current date is fixed: Wednesday
 * 2 December 2026, 09:00 UTC ("this weekend" is 5-6 December, "next week" 7-13 December).
 */
import { expect } from 'chai';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { silentLogger } from '@switchyard/shared/testing';
import { callApi, organizationKey, type ApiResponse } from '../support/http';
import { E2E_ENV } from '../support/mesh';
import {
  BIKE_INFO_CSV,
  BIKE_LEISTUNGEN,
  bikeWorkshops,
  COURSES,
  SCHOOL_INFO,
  shows,
} from '../eval/assistants/follow-ups';

const NOW = new Date('2026-12-02T09:00:00Z');

const LINK = /\[([^\]]+)\]\([^)]+\)|\*\*([^*]+)\*\*/g;
/** Titles a reply names, linked or bold, in order. */
const titlesIn = (reply: string) => [...reply.matchAll(LINK)].map((m) => m[1] ?? m[2]);

describe('e2e: builtin conversation on phrasing it was not built on (three businesses)', function () {
  this.timeout(60_000);
  let mesh: EmbeddedMesh;
  const keys: Record<'bike' | 'tickets' | 'school', string> = { bike: '', tickets: '', school: '' };
  const as =
    (org: keyof typeof keys) =>
    (path: string, options = {}) =>
      callApi(mesh.gatewayUrl, keys[org], path, options);

  let sessions = 0;
  function conversation(org: keyof typeof keys, agent = 'chat') {
    const sessionId = `conv-${org}-${++sessions}`;
    return {
      sessionId,
      send: (content: string, step?: number): Promise<ApiResponse> =>
        as(org)(`/api/v2/ai/assistants/${agent}`, {
          body: {
            user_id: 'visitor',
            session_id: sessionId,
            messages: [{ role: 'user', content }],
            ...(step !== undefined ? { step } : {}),
          },
        }),
      async say(content: string, step?: number): Promise<string> {
        const res = await this.send(content, step);
        expect(res.status, res.text).to.equal(200);
        return res.body.reply as string;
      },
    };
  }

  before(async () => {
    mesh = await startEmbeddedMesh(E2E_ENV, silentLogger(), { now: () => NOW });
    for (const [name, timeZone] of [
      ['bike', 'Europe/Berlin'],
      ['tickets', 'Europe/Berlin'],
      ['school', 'Europe/Madrid'],
    ] as const)
      keys[name] = await organizationKey(mesh, `conv-${name}`, timeZone);
    const collection = async (org: keyof typeof keys, name: string, kind: string) =>
      expect(
        (await as(org)('/api/v2/knowledge/collections', { body: { name, kind } })).status,
      ).to.equal(201);
    const imported = async (
      org: keyof typeof keys,
      name: string,
      content: string,
      type: string,
    ) => {
      const res = await as(org)(`/api/v2/knowledge/collections/${name}/import`, {
        rawBody: content,
        contentType: type,
      });
      expect(res.status, res.text).to.equal(200);
    };
    const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');
    await collection('bike', 'workshops', 'events');
    await imported('bike', 'workshops', jsonl(bikeWorkshops(NOW)), 'application/x-ndjson');
    await collection('bike', 'info', 'articles');
    await imported('bike', 'info', BIKE_INFO_CSV, 'text/csv');
    await collection('bike', 'leistungen', 'documents');
    const prices = await as('bike')('/api/v2/knowledge/collections/leistungen/documents', {
      body: { documents: BIKE_LEISTUNGEN },
    });
    expect(prices.status, prices.text).to.equal(200);
    await collection('tickets', 'shows', 'events');
    await imported('tickets', 'shows', jsonl(shows(NOW)), 'application/x-ndjson');
    await collection('school', 'cursos', 'courses');
    await imported('school', 'cursos', jsonl(COURSES), 'application/x-ndjson');
    await collection('school', 'info', 'articles');
    const written = await as('school')('/api/v2/knowledge/collections/info/documents', {
      body: { documents: SCHOOL_INFO },
    });
    expect(written.status, written.text).to.equal(200);
  });

  after(() => mesh?.stop());

  describe('connectives and short follow-ups keep the thread', () => {
    it('"and on Saturday?" after "when are you open?" is Saturday\'s hours, in whole values', async () => {
      const chat = conversation('bike');
      const open = await chat.say('When are you open?');
      expect(open).to.match(/^Mo–Fr 9:00–18:00, Sa 10:00–14:00\./);
      expect(open).to.include('Closed on Sundays');
      const saturday = await chat.say('and on Saturday?');
      expect(saturday).to.match(/^Sa 10:00–14:00\./);
      expect(saturday).to.not.include('Mo–Fr');
      expect(await chat.say('Und am Sonntag?')).to.match(/^Closed on Sundays/);
      // Never a value cut inside ("Sa 10:00–1…"), never the tags line.
      for (const reply of [open, saturday]) {
        expect(reply).to.not.match(/\d…|Tags:/);
        expect(reply.split('Opening hours').length - 1).to.equal(1);
      }
    });

    it('"and how much is a puncture repair?" and "und wo?" continue the question before', async () => {
      const chat = conversation('bike');
      expect(await chat.say('How much does a full service cost?')).to.match(
        /^Full service: 89 EUR \(everything in the basic service/,
      );
      expect(await chat.say('and how much is a puncture repair?')).to.match(
        /^Puncture repair: 15 EUR including a new tube\./,
      );
      const german = conversation('bike');
      await german.say('Wann ist der Kids bike workshop?');
      expect(await german.say('Und was kostet der?')).to.match(
        /^\*\*Kids bike workshop\*\*: Price: 10 EUR\./,
      );
      expect(await german.say('und wo?')).to.include(
        'It takes place at Speiche Werkstatt, Leipzig.',
      );
    });

    it('"und der Basisservice?" asks the price again, answered from a document\'s metadata; support too', async () => {
      const chat = conversation('bike');
      expect(await chat.say('Was kostet der Vollservice?')).to.equal(
        '**Vollservice**: Preis: 89 EUR',
      );
      expect(await chat.say('und der Basisservice?')).to.equal('**Basisservice**: Preis: 49 EUR');
      const support = conversation('bike', 'support');
      expect(await support.say('Was kostet der Vollservice?')).to.include('Preis: 89 EUR');
      expect(await support.say('Is the shop open on Sundays?')).to.include('Closed on Sundays');
    });

    it('a date as people write it ("on 12 December", "und am 9.12.?") is that day', async () => {
      const chat = conversation('bike');
      expect(titlesIn(await chat.say('Is there a workshop on 12 December?'))).to.deep.equal([
        'Kids bike workshop',
      ]);
      expect(titlesIn(await chat.say('und am 9.12.?'))).to.deep.equal(['Winter commuting clinic']);
      expect(await chat.say('What time do you close on Saturday?')).to.match(/^Sa 10:00–14:00\./);
    });

    it('"und in München?", "Was ist mit nächstem Wochenende?" keep the kind and the city', async () => {
      const chat = conversation('tickets');
      expect(
        titlesIn(await chat.say('Welche Konzerte gibt es dieses Wochenende in Hamburg?')),
      ).to.deep.equal(['Elbphilharmonie Brahms Abend']);
      expect(titlesIn(await chat.say('und in München?'))).to.deep.equal(['Jazz im Unterfahrt']);
      expect(titlesIn(await chat.say('Was ist mit nächstem Wochenende?'))).to.deep.equal([
        'Weihnachtsoratorium',
      ]);
    });

    it('"y el sábado?" and "et vos horaires ?" in Spanish and French', async () => {
      const chat = conversation('school');
      expect(await chat.say('¿A qué hora abrís el lunes?')).to.match(
        /^Lunes a viernes de 10:00 a 14:00 y de 16:00 a 20:00\./,
      );
      expect(await chat.say('¿y el sábado?')).to.match(/^Sábados cerrado\./);
      const french = conversation('school');
      await french.say('Quels cours pour enfants ?');
      expect(await french.say('combien ça coûte ?')).to.include('Price: 150 EUR.');
      expect(await french.say('et vos horaires ?')).to.include('Lunes a viernes de 10:00 a 14:00');
    });
  });

  describe('ordinals and pronouns against what was shown', () => {
    it('"the second one" is the second item shown, "it" the one in focus, in any of the languages', async () => {
      const chat = conversation('tickets');
      expect(titlesIn(await chat.say("What's on in Munich this weekend?"))).to.deep.equal([
        'Jazz im Unterfahrt',
        'Kasperle Puppentheater',
      ]);
      expect(titlesIn(await chat.say('tell me about the second one'))[0]).to.equal(
        'Kasperle Puppentheater',
      );
      expect(await chat.say('is it suitable for kids?')).to.match(
        /^\[Kasperle Puppentheater\]\([^)]+\): Yes, it is for kids\. Für die Kleinen ab 3\./,
      );
      expect(titlesIn(await chat.say('and the first one?'))[0]).to.equal('Jazz im Unterfahrt');
      expect(await chat.say('the third one')).to.match(/^The list I showed has 2 items/);
      const spanish = conversation('school');
      expect(titlesIn(await spanish.say('¿Qué cursos tenéis para principiantes?'))).to.deep.equal([
        'Alemán A1',
        'Français pour enfants',
      ]);
      expect(titlesIn(await spanish.say('¿y el segundo?'))[0]).to.equal('Français pour enfants');
      expect(await spanish.say('¿cuánto cuesta?')).to.include('Price: 150 EUR.');
    });
  });

  describe('filters end with their topic; dates read against the period under discussion', () => {
    it('"Und am Wochenende?" after "next week" is that week\'s weekend, and a new topic drops "for kids"', async () => {
      const chat = conversation('bike');
      expect(titlesIn(await chat.say('Gibt es nächste Woche Workshops?'))).to.deep.equal([
        'Winter commuting clinic',
        'Kids bike workshop',
      ]);
      const weekend = await chat.say('Und am Wochenende?');
      expect(titlesIn(weekend)).to.deep.equal(['Kids bike workshop']);
      expect(weekend).to.include('from Sat 12 Dec to Sun 13 Dec');
      expect(titlesIn(await chat.say('anything for kids?'))).to.deep.equal(['Kids bike workshop']);
      const price = await chat.say('How much does a full service cost?');
      expect(price).to.match(/^Full service: 89 EUR/);
      expect(price).to.not.match(/couldn't find|kids|much/);
    });

    it('"und was gibt es für Kinder?" after concerts finds any show for kids in the city', async () => {
      const chat = conversation('tickets');
      await chat.say('Konzerte in München dieses Wochenende');
      expect(titlesIn(await chat.say('und was gibt es für Kinder?'))).to.deep.equal([
        'Kasperle Puppentheater',
      ]);
    });
  });

  describe("answers in the organization's own words and data", () => {
    it("greets from the organization's data, calls its records by its own noun, answers a plain question from an article", async () => {
      const chat = conversation('bike');
      const hello = await chat.say('Hi!');
      expect(hello).to.include('workshops').and.include('Leipzig').and.include('"Opening hours"');
      expect(hello).to.not.match(/concert|Madrid|event/i);
      const list = await chat.say('any workshops next week?');
      expect(list).to.match(/^Here are 2 workshops from Mon 7 Dec to Sun 13 Dec:/);
      expect(await chat.say("What's your address?")).to.match(
        /^Speiche Fahrradwerkstatt, Karl-Liebknecht-Straße 12, 04107 Leipzig\./,
      );
      const none = await chat.say('Do you sell unicycles?');
      expect(none).to.match(/^I couldn't find "sell unicycles"/);
      expect(none).to.not.match(/event/i);
      expect(await conversation('school').say('Quelle est votre adresse ?')).to.match(
        /^Calle Mayor 12, 28013 Madrid\./,
      );
    });
  });

  describe("onboarding takes the topic and the modules from the user's words", () => {
    it('keeps the topic named first and four modules as four', async () => {
      const onboarding = conversation('bike', 'onboarding');
      const first = await onboarding.say(
        'I want to create a beginner workshop series: Winter bike maintenance for Leipzig commuters',
        1,
      );
      expect(first).to.include('Your course: **Winter bike maintenance for Leipzig commuters**');
      await onboarding.say('done', 1);
      const modules = await onboarding.say(
        'Four modules: Lights and visibility, Tyres and grip, Brakes in the wet, Chain care and cleaning',
        2,
      );
      expect(modules).to.include(
        'Modules so far:\n1. Lights and visibility\n2. Tyres and grip\n3. Brakes in the wet\n4. Chain care and cleaning',
      );
      await onboarding.say('We want to run it as an evening workshop series with a quiz', 4);
      const stored = await as('bike')(`/api/v2/assistants/sessions/${onboarding.sessionId}`);
      expect(stored.body.onboarding.draft).to.deep.include({
        topic: 'Winter bike maintenance for Leipzig commuters',
        modules: [
          'Lights and visibility',
          'Tyres and grip',
          'Brakes in the wet',
          'Chain care and cleaning',
        ],
      });
      const listed = conversation('bike', 'onboarding');
      await listed.say('Modules: Brakes, Lights and Tyres', 2);
      const draft = (await as('bike')(`/api/v2/assistants/sessions/${listed.sessionId}`)).body
        .onboarding.draft;
      expect(draft.modules).to.deep.equal(['Brakes', 'Lights', 'Tyres']);
    });
  });

  describe('long input is not echoed (issue 35)', () => {
    const paragraph =
      'My bike makes a clicking noise when I pedal uphill, mostly in the lower gears, and it started after I changed the chain last month. ';

    it('a message over what the engine accepts is 413 payload_too_large naming it, and nothing is stored', async () => {
      for (const agent of ['chat', 'support', 'onboarding']) {
        const chat = conversation('bike', agent);
        const res = await chat.send(paragraph.repeat(800), agent === 'onboarding' ? 1 : undefined);
        expect(res.status, res.text).to.equal(413);
        expect(res.body.error.code).to.equal('payload_too_large');
        expect(res.body.error.details).to.deep.equal([
          { field: '/messages/0/content', reason: 'over 4000 tokens' },
        ]);
        expect((await as('bike')(`/api/v2/assistants/sessions/${chat.sessionId}`)).status).to.equal(
          404,
        );
      }
      const streamed = await fetch(`${mesh.gatewayUrl}/api/v2/ai/assistants/chat`, {
        method: 'POST',
        headers: { authorization: `X-API-Key ${keys.bike}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          user_id: 'visitor',
          session_id: 'conv-long-stream',
          stream: true,
          messages: [{ role: 'user', content: paragraph.repeat(800) }],
        }),
      });
      expect(streamed.status).to.equal(413);
      const body = (await streamed.json()) as { error: { code: string } };
      expect(body.error.code).to.equal('payload_too_large');
    });

    it('a long message within the limit is answered without being quoted back', async () => {
      const long = paragraph.repeat(60); // about 8,000 characters
      for (const agent of ['chat', 'support', 'onboarding']) {
        const reply = await conversation('bike', agent).say(
          long,
          agent === 'onboarding' ? 1 : undefined,
        );
        expect(reply.length, agent).to.be.below(2000);
        expect(reply, agent).to.not.include(long.slice(0, 400));
      }
    });
  });
});
