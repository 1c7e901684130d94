import type { EvalConversation, EvalSet } from '../eval-set';
import { VENDOR_STRINGS } from '../organizations';
import {
  ATELIER_CLASSES,
  ATELIER_GOURMAND,
  ENTRADAS_EVENTS,
  ENTRADAS_SUR,
  HELD_OUT_NOW,
  SPEICHENWERK,
  SPEICHENWERK_WORKSHOPS,
} from './businesses';

/** Titles of a list by id. */
const workshops = (...ids: string[]) =>
  SPEICHENWERK_WORKSHOPS.filter((w) => ids.includes(w.id)).map((w) => w.title);
const otherWorkshops = (...ids: string[]) =>
  SPEICHENWERK_WORKSHOPS.filter((w) => !ids.includes(w.id)).map((w) => w.title);
const events = (...ids: string[]) =>
  ENTRADAS_EVENTS.filter((e) => ids.includes(e[0])).map((e) => e[1]);
const otherEvents = (...ids: string[]) =>
  ENTRADAS_EVENTS.filter((e) => !ids.includes(e[0])).map((e) => e[1]);
const classes = (...ids: string[]) =>
  ATELIER_CLASSES.filter((c) => ids.includes(c.id)).map((c) => c.title);
const otherClasses = (...ids: string[]) =>
  ATELIER_CLASSES.filter((c) => !ids.includes(c.id)).map((c) => c.title);

const DEC_12 = ['12 Dec', '12 December', 'December 12', '12.12.', '12. Dez'];
const EUR = (n: number) => [`${n} EUR`, `${n} €`, `€${n}`, `€ ${n}`, `${n} euro`, `${n},00`];

/** The bicycle repair shop: workshops (chat), services and policies (support), in English and German. */
function speichenwerk(): EvalConversation[] {
  return [
    {
      id: 'sw-kids-workshop-follow-ups',
      org: 'speichenwerk',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'When is the kids workshop?',
          facts: [DEC_12, ['11:00', '11 am', '11am']],
          forbidden: workshops('battery-care', 'winter-commute'),
        },
        { user: 'and how much is it?', facts: [EUR(15)], forbidden: ['89', '119'] },
        {
          user: 'Is it ok for my 7 year old?',
          facts: [['8 to 12', '8-12', '8–12', 'aged 8']],
        },
      ],
    },
    {
      id: 'sw-next-week',
      org: 'speichenwerk',
      agent: 'chat',
      turns: [
        {
          user: 'What workshops are on next week?',
          facts: workshops('open-evening', 'kids'),
          forbidden: otherWorkshops('open-evening', 'kids'),
        },
        {
          user: 'And the week after?',
          facts: workshops('battery-care'),
          forbidden: workshops('open-evening', 'kids', 'flat-tyre'),
        },
      ],
    },
    {
      id: 'sw-wochenende-de',
      org: 'speichenwerk',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'Welche Workshops gibt es am Wochenende?',
          facts: workshops('flat-tyre'),
          forbidden: otherWorkshops('flat-tyre'),
        },
        {
          user: 'Und am nächsten Wochenende?',
          facts: workshops('kids'),
          forbidden: otherWorkshops('kids'),
        },
      ],
    },
    {
      id: 'sw-filter-ends-with-topic',
      org: 'speichenwerk',
      agent: 'chat',
      turns: [
        {
          user: 'Anything for kids?',
          facts: workshops('kids'),
          forbidden: otherWorkshops('kids'),
        },
        {
          user: 'How much does a full service cost?',
          facts: [['89']],
          forbidden: ['for kids', "couldn't find", 'events'],
        },
      ],
    },
    {
      id: 'sw-free',
      org: 'speichenwerk',
      agent: 'chat',
      turns: [
        {
          user: 'Is there anything free coming up?',
          facts: workshops('flat-tyre'),
          forbidden: workshops('kids', 'battery-care', 'open-evening'),
        },
      ],
    },
    {
      id: 'sw-greeting',
      org: 'speichenwerk',
      agent: 'chat',
      turns: [
        {
          user: 'Hallo!',
          facts: [['Hallo', 'Hello', 'Hi']],
          forbidden: ['Madrid', 'concert'],
        },
      ],
    },
    {
      id: 'sw-hours-and-policy',
      org: 'speichenwerk',
      agent: 'support',
      short: true,
      turns: [
        {
          user: 'What are your opening hours on Saturday?',
          facts: [
            ['10:00', '10 am', '10am'],
            ['14:00', '2 pm', '2pm'],
          ],
          escalate: false,
        },
        {
          user: 'Do I need an appointment for a repair?',
          facts: [['without an appointment', 'no appointment']],
          escalate: false,
        },
        {
          user: 'How long do you keep my bike after it is fixed?',
          facts: [['14 days']],
          escalate: false,
        },
      ],
    },
    {
      id: 'sw-preis-de',
      org: 'speichenwerk',
      agent: 'support',
      turns: [
        { user: 'Was kostet eine Komplettinspektion?', facts: [['89']], escalate: false },
        {
          user: 'Wie lange dauert das?',
          facts: [['2 Werktage', '2 working days', 'two working days']],
          escalate: false,
        },
      ],
    },
    {
      id: 'sw-battery',
      org: 'speichenwerk',
      agent: 'support',
      turns: [
        {
          user: 'Can you fix my e-bike battery?',
          facts: [['do not repair batteries', "don't repair batteries", 'not repair batteries']],
          escalate: false,
        },
      ],
    },
    {
      id: 'sw-angry-escalation',
      org: 'speichenwerk',
      agent: 'support',
      short: true,
      turns: [
        {
          user: 'My brakes failed two days after your repair. This is unacceptable!',
          escalate: true,
        },
        { user: 'The repair number is SW-4471', facts: ['SW-4471'], escalate: false },
      ],
    },
    {
      id: 'sw-mitarbeiter-de',
      org: 'speichenwerk',
      agent: 'support',
      turns: [
        { user: 'Guten Tag', escalate: false },
        { user: 'Ich möchte bitte mit einem Mitarbeiter sprechen.', escalate: true },
      ],
    },
    {
      id: 'sw-onboarding-en',
      org: 'speichenwerk',
      agent: 'onboarding',
      turns: [
        {
          user: 'I want to build a course: Winter bike maintenance for Leipzig commuters',
          step: 1,
          facts: ['Winter bike maintenance for Leipzig commuters'],
          forbidden: ['beginner workshop series'],
          nextStep: 2,
        },
        {
          user: 'Four modules: lights and visibility, brakes in the wet, chain care, winter tyres',
          step: 2,
          facts: ['lights and visibility', 'brakes in the wet', 'chain care', 'winter tyres'],
          nextStep: 3,
        },
      ],
    },
    {
      id: 'sw-onboarding-de',
      org: 'speichenwerk',
      agent: 'onboarding',
      turns: [
        {
          user: 'Ich möchte einen Kurs „Fahrradpflege im Winter“ für Pendler anlegen.',
          step: 1,
          facts: ['Fahrradpflege im Winter'],
          nextStep: 2,
        },
      ],
    },
  ];
}

/** The ticket seller: Spanish conversations (and one in English) over its events. */
function entradasSur(): EvalConversation[] {
  return [
    {
      id: 'es-weekend-city-ordinal',
      org: 'entradas',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: '¿Qué hay este fin de semana en Sevilla?',
          facts: events('e1', 'e2'),
          forbidden: otherEvents('e1', 'e2'),
        },
        {
          user: '¿Y en Málaga?',
          facts: events('e3', 'e4'),
          forbidden: otherEvents('e3', 'e4'),
        },
        {
          user: '¿Cuánto cuesta la segunda?',
          facts: [['gratis', 'free', '0 EUR', '0 €']],
          forbidden: ['18 EUR', ...events('e1', 'e2')],
        },
      ],
    },
    {
      id: 'es-ninos',
      org: 'entradas',
      agent: 'chat',
      turns: [
        {
          user: '¿Hay algo para niños en Sevilla?',
          facts: events('e2'),
          forbidden: events('e1', 'e7', 'e4'),
        },
        { user: '¿A qué hora empieza?', facts: [['11:30']] },
      ],
    },
    {
      id: 'es-english-next-weekend',
      org: 'entradas',
      agent: 'chat',
      turns: [
        {
          user: 'Any concerts in Granada next weekend?',
          facts: events('e5'),
          forbidden: events('e6', 'e3', 'e7'),
        },
        {
          user: 'What about Sevilla?',
          facts: events('e7'),
          forbidden: events('e5', 'e1', 'e2'),
        },
      ],
    },
    {
      id: 'es-persona',
      org: 'entradas',
      agent: 'support',
      short: true,
      turns: [
        { user: 'Hola', escalate: false },
        { user: 'Quiero hablar con una persona, por favor', escalate: true },
      ],
    },
  ];
}

/** The cooking school: prices in its articles, classes as events; French and English. */
function atelierGourmand(): EvalConversation[] {
  return [
    {
      id: 'fr-prix-et-samedi',
      org: 'atelier',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'Combien coûte un cours ?',
          facts: [['65']],
          forbidden: ["couldn't find", 'Je n’ai trouvé aucun'],
        },
        {
          user: 'Quels cours ont lieu samedi ?',
          facts: classes('lyonnaise'),
          forbidden: classes('noel', 'sushi'),
        },
      ],
    },
    {
      id: 'fr-children-en',
      org: 'atelier',
      agent: 'chat',
      turns: [
        {
          user: 'Do you have classes for children?',
          facts: classes('enfants'),
          forbidden: otherClasses('enfants'),
        },
        { user: 'What time does it start?', facts: [['14:00', '2 pm', '2:00 pm', '14h']] },
      ],
    },
    {
      id: 'fr-gift-voucher',
      org: 'atelier',
      agent: 'chat',
      turns: [{ user: 'How much is a gift voucher?', facts: [['65']] }],
    },
    {
      id: 'fr-annulation-acces',
      org: 'atelier',
      agent: 'support',
      turns: [
        {
          user: 'Est-ce que je peux annuler ma réservation ?',
          facts: [['48 heures', '48 h']],
          escalate: false,
        },
        { user: 'Où se trouve l’atelier ?', facts: ['Mercière'], escalate: false },
      ],
    },
    {
      id: 'fr-conseiller',
      org: 'atelier',
      agent: 'support',
      short: true,
      turns: [{ user: 'Je voudrais parler à un conseiller.', escalate: true }],
    },
  ];
}

/** The held-out set: written apart from the engine, never tuned against (see README.md here). */
export function heldOutSet(): EvalSet {
  return {
    name: 'held-out',
    now: HELD_OUT_NOW,
    vendorStrings: VENDOR_STRINGS,
    organizations: {
      speichenwerk: SPEICHENWERK,
      entradas: ENTRADAS_SUR,
      atelier: ATELIER_GOURMAND,
    },
    conversations: [...speichenwerk(), ...entradasSur(), ...atelierGourmand()],
  };
}
