import { importCollection, type EvalConversation, type EvalOrganization } from './eval-set';

/**
 * Three businesses of the development set for conversation on phrasing the engine was not built
 * on (issue: connectives, ordinals, pronouns, filters that end with their topic, dates read
 * against the period under discussion, answers that lead with the asked fact): a bicycle repair
 * shop in Leipzig, a ticket seller in Hamburg and Munich, a language school in Madrid. Their dates
 * are days after a Wednesday (the set's current date), so "this weekend" is 3-4 days on and "next
 * week" 5-11; test/e2e/assistant-conversation.test.ts uses the same data at its own Wednesday.
 */

/** "2027-03-13T11:00:00+01:00": days after the Wednesday `base`, at a local time and offset. */
function at(base: Date, days: number, time: string, offset = '+01:00'): string {
  const day = new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  return `${day}T${time}:00${offset}`;
}

/** "12 December" and "12.12.": the date `days` after the Wednesday `base`, as people write it. */
export function dateSaid(base: Date, days: number): { words: string; dotted: string } {
  const date = new Date(base.getTime() + days * 86_400_000);
  const month = date.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
  return {
    words: `${date.getUTCDate()} ${month}`,
    dotted: `${date.getUTCDate()}.${date.getUTCMonth() + 1}.`,
  };
}

export function bikeWorkshops(wednesday: Date) {
  const shop = { city: 'Leipzig', venue: 'Speiche Werkstatt', currency: 'EUR' };
  return [
    {
      id: 'w1',
      title: 'Kids bike workshop',
      ...shop,
      startsAt: at(wednesday, 10, '11:00'),
      price: 10,
      tags: ['workshop', 'kids'],
      description: 'Children aged 8 to 12 learn to fix a puncture and adjust their brakes.',
    },
    {
      id: 'w2',
      title: 'Winter commuting clinic',
      ...shop,
      startsAt: at(wednesday, 7, '18:30'),
      price: 25,
      tags: ['workshop'],
      description: 'Lights, mudguards and winter tyres for daily riders.',
    },
    {
      id: 'w3',
      title: 'Brake tuning evening',
      ...shop,
      startsAt: at(wednesday, 15, '18:30'),
      price: 20,
      tags: ['workshop'],
      description: 'Disc and rim brakes: pads, cables and bleeding.',
    },
    {
      id: 'w4',
      title: 'Open workshop Saturday',
      ...shop,
      startsAt: at(wednesday, 3, '10:00'),
      price: 0,
      tags: ['workshop'],
      description: 'Use our stands and tools for free, with a mechanic on hand.',
    },
  ];
}

/** The shop's information as a CSV export: one article per row, bodies over several lines. */
export const BIKE_INFO_CSV = [
  'id,title,body,tags',
  // A long first paragraph: the Saturday hours lie past where a reply used to cut the text.
  `hours,Opening hours,"We repair bicycles of every kind, from city bikes and cargo bikes to e-bikes and racing bikes, and we are happy to look at your bike while you wait whenever the workshop is quiet. Walk-ins are welcome; for a full service please book a slot by phone or email so we can order parts in time. Mo–Fr 9:00–18:00, Sa 10:00–14:00.\n\nClosed on Sundays and public holidays.\n\nTags: hours",hours`,
  `prices,Service prices,"Basic service: 49 EUR (gears, brakes, tyre pressure).\nFull service: 89 EUR (everything in the basic service plus wheel truing, bearings and a wash).\nPuncture repair: 15 EUR including a new tube.",prices|service`,
  `returns,Returns and warranty,"Parts can be returned within 14 days with the receipt. Repairs carry a 3-month warranty.",policy`,
  `contact,Contact and address,"Speiche Fahrradwerkstatt, Karl-Liebknecht-Straße 12, 04107 Leipzig. Phone +49 341 5550123, email hallo@speiche.example.",contact`,
].join('\r\n');

/** The shop's German price list as documents with metadata, written as a JSON batch. */
export const BIKE_LEISTUNGEN = [
  {
    id: 'voll',
    title: 'Vollservice',
    text: 'Komplette Inspektion mit Laufräder zentrieren, Lager prüfen und Wäsche.',
    metadata: { Preis: '89 EUR', Dauer: '1 Tag' },
  },
  {
    id: 'basis',
    title: 'Basisservice',
    text: 'Schaltung, Bremsen und Reifendruck.',
    metadata: { Preis: '49 EUR', Dauer: '2 Stunden' },
  },
];

export function shows(wednesday: Date) {
  const rows: Array<[string, string, string, string, number, string, number, string, string]> = [
    [
      't1',
      'Elbphilharmonie Brahms Abend',
      'Hamburg',
      'Elbphilharmonie',
      3,
      '19:30',
      45,
      'concert',
      'Brahms with the NDR orchestra.',
    ],
    [
      't2',
      'Kiez Comedy Night',
      'Hamburg',
      'Schmidts Tivoli',
      3,
      '21:00',
      18,
      'comedy',
      'Stand-up in German and English. Ab 16 Jahren.',
    ],
    [
      't3',
      'Der kleine Prinz',
      'Hamburg',
      'Ernst Deutsch Theater',
      4,
      '15:00',
      12,
      'theatre',
      'Ein Familienstück für Kinder ab 5 Jahren.',
    ],
    [
      't4',
      'Jazz im Unterfahrt',
      'München',
      'Unterfahrt',
      3,
      '20:00',
      25,
      'concert',
      'Piano trio, late set.',
    ],
    [
      't5',
      'Weihnachtsoratorium',
      'München',
      'Herkulessaal',
      10,
      '19:00',
      39,
      'concert',
      'Bach, parts I to III.',
    ],
    [
      't6',
      'Kasperle Puppentheater',
      'München',
      'Marionettentheater',
      4,
      '11:00',
      9,
      'theatre',
      'Für die Kleinen ab 3.',
    ],
  ];
  return rows.map(([id, title, city, venue, days, time, price, tag, description]) => ({
    id,
    title,
    city,
    venue,
    startsAt: at(wednesday, days, time),
    price,
    currency: 'EUR',
    tags: [tag],
    description,
    url: `https://kartenhaus.example/${id}`,
  }));
}

export const COURSES = [
  {
    id: 'c1',
    title: 'Alemán A1',
    level: 'beginner',
    price: 240,
    currency: 'EUR',
    url: 'https://idiomas.example/a1',
    description: 'Para principiantes absolutos. Dos tardes por semana.',
    modules: [{ title: 'Saludos', lessons: [{ title: 'Hola' }] }],
  },
  {
    id: 'c2',
    title: 'Inglés B2 intensivo',
    level: 'intermediate',
    price: 390,
    currency: 'EUR',
    url: 'https://idiomas.example/b2',
    description: 'Preparación para el examen First.',
    modules: [{ title: 'Reading', lessons: [{ title: 'Texts' }] }],
  },
  {
    id: 'c3',
    title: 'Français pour enfants',
    level: 'beginner',
    price: 150,
    currency: 'EUR',
    url: 'https://idiomas.example/fr-kids',
    description: 'Cours ludique pour enfants de 6 à 10 ans.',
    modules: [{ title: 'Jeux', lessons: [{ title: 'Couleurs' }] }],
  },
];

export const SCHOOL_INFO = [
  {
    id: 'horario',
    title: 'Horario de secretaría',
    body: 'Lunes a viernes de 10:00 a 14:00 y de 16:00 a 20:00. Sábados cerrado.',
  },
  {
    id: 'matricula',
    title: 'Matrícula y pagos',
    body: 'La matrícula cuesta 30 EUR y se paga una sola vez.\nEl pago mensual se hace por transferencia.',
  },
  {
    id: 'contacto',
    title: 'Contacto',
    body: 'Calle Mayor 12, 28013 Madrid. Teléfono +34 910 000 111. Correo hola@idiomas.example',
  },
];

/** The three businesses as the development set creates them (imports as their owners would). */
export function followUpOrganizations(wednesday: Date): Record<string, EvalOrganization> {
  return {
    bike: {
      id: 'eval-speiche',
      name: 'Speiche Fahrradwerkstatt',
      timeZone: 'Europe/Berlin',
      own: ['Speiche', 'Kids bike workshop', 'Full service'],
      async load(api) {
        await importCollection(
          api,
          { name: 'workshops', kind: 'events' },
          { jsonl: bikeWorkshops(wednesday) },
        );
        await importCollection(api, { name: 'info', kind: 'articles' }, { csv: BIKE_INFO_CSV });
        await importCollection(
          api,
          { name: 'leistungen', kind: 'documents' },
          { json: BIKE_LEISTUNGEN },
        );
      },
    },
    tickets: {
      id: 'eval-kartenhaus',
      name: 'Kartenhaus',
      timeZone: 'Europe/Berlin',
      own: ['Kartenhaus', 'Elbphilharmonie Brahms Abend', 'Kasperle Puppentheater'],
      load: (api) =>
        importCollection(api, { name: 'shows', kind: 'events' }, { jsonl: shows(wednesday) }),
    },
    school: {
      id: 'eval-idiomas',
      name: 'Idiomas Mayor',
      timeZone: 'Europe/Madrid',
      own: ['idiomas.example', 'Calle Mayor 12'],
      async load(api) {
        await importCollection(api, { name: 'cursos', kind: 'courses' }, { jsonl: COURSES });
        await importCollection(api, { name: 'info', kind: 'articles' }, { json: SCHOOL_INFO });
      },
    },
  };
}

const titles = (rows: Array<{ title: string }>) => rows.map((r) => r.title);
const except = (rows: Array<{ title: string }>, keep: string[]) =>
  titles(rows).filter((t) => !keep.includes(t));

/** The conversations over the three businesses; a fixed case of the held-out set would join them here. */
export function followUpConversations(wednesday: Date): EvalConversation[] {
  const workshops = bikeWorkshops(wednesday);
  const tickets = shows(wednesday);
  return [
    {
      id: 'fu-bike-hours-thread',
      org: 'bike',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'Hi!',
          facts: ['workshops', 'Leipzig', 'Opening hours'],
          forbidden: ['Madrid', 'concert', 'event'],
        },
        {
          user: 'When are you open?',
          facts: ['Mo–Fr 9:00–18:00, Sa 10:00–14:00'],
          forbidden: ['Tags:'],
        },
        { user: 'and on Saturday?', facts: ['Sa 10:00–14:00'], forbidden: ['Mo–Fr', '…'] },
        { user: 'Und am Sonntag?', facts: ['Closed on Sundays'], forbidden: ['Mo–Fr'] },
        {
          user: 'How much does a full service cost?',
          facts: ['Full service: 89 EUR'],
          forbidden: ["couldn't find", 'Puncture'],
        },
        {
          user: 'and how much is a puncture repair?',
          facts: ['Puncture repair: 15 EUR'],
          forbidden: ['much', 'Full service: 89'],
        },
        {
          user: "What's your address?",
          facts: ['Karl-Liebknecht-Straße 12, 04107 Leipzig'],
          forbidden: ['Puncture'],
        },
        { user: 'wie kann ich euch erreichen?', facts: ['+49 341 5550123'] },
      ],
    },
    {
      id: 'fu-bike-next-week-weekend',
      org: 'bike',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'Gibt es nächste Woche Workshops?',
          facts: ['Winter commuting clinic', 'Kids bike workshop'],
          forbidden: except(workshops, ['Winter commuting clinic', 'Kids bike workshop']),
        },
        {
          user: 'Und am Wochenende?',
          facts: ['Kids bike workshop'],
          forbidden: except(workshops, ['Kids bike workshop']).concat(['und']),
        },
        {
          user: 'Was kostet der?',
          facts: ['10 EUR'],
          forbidden: except(workshops, ['Kids bike workshop']),
        },
        { user: 'und wo?', facts: ['Speiche Werkstatt'] },
        {
          user: 'anything for kids?',
          facts: ['Kids bike workshop'],
          forbidden: except(workshops, ['Kids bike workshop']),
        },
        {
          user: 'How much does a full service cost?',
          facts: ['89 EUR'],
          forbidden: ["couldn't find", 'kids', 'much'],
        },
        { user: 'the second one', facts: ['only 1 item'] },
      ],
    },
    {
      id: 'fu-bike-focus',
      org: 'bike',
      agent: 'chat',
      turns: [
        { user: 'When is the kids workshop?', facts: ['Kids bike workshop', '11:00'] },
        { user: 'and how much is it?', facts: ['10 EUR'], forbidden: ["couldn't find", 'much'] },
        {
          user: 'what about the brake tuning evening?',
          facts: ['Brake tuning evening', '20 EUR'],
          forbidden: ['Kids bike workshop'],
        },
        {
          user: 'and where is it?',
          facts: ['Brake tuning evening', 'Speiche Werkstatt'],
          forbidden: ['Kids bike workshop'],
        },
        {
          user: 'Do you sell unicycles?',
          facts: ["couldn't find"],
          forbidden: ['event', 'Kids bike workshop'],
        },
      ],
    },
    {
      id: 'fu-bike-dates',
      org: 'bike',
      agent: 'chat',
      turns: [
        {
          user: `Is there a workshop on ${dateSaid(wednesday, 10).words}?`,
          facts: ['Kids bike workshop'],
          forbidden: except(workshops, ['Kids bike workshop']),
        },
        {
          user: `und am ${dateSaid(wednesday, 7).dotted}?`,
          facts: ['Winter commuting clinic'],
          forbidden: except(workshops, ['Winter commuting clinic']),
        },
        {
          user: 'What time do you close on Saturday?',
          facts: ['Sa 10:00–14:00'],
          forbidden: ['Mo–Fr'],
        },
      ],
    },
    {
      id: 'fu-bike-german-prices',
      org: 'bike',
      agent: 'chat',
      turns: [
        {
          user: 'Was kostet der Vollservice?',
          facts: ['Vollservice', 'Preis: 89 EUR'],
          forbidden: ['49 EUR'],
        },
        {
          user: 'und der Basisservice?',
          facts: ['Basisservice', 'Preis: 49 EUR'],
          forbidden: ['89 EUR'],
        },
        { user: 'Habt ihr am Samstag offen?', facts: ['Sa 10:00–14:00'], forbidden: ['Mo–Fr'] },
      ],
    },
    {
      id: 'fu-bike-support-values',
      org: 'bike',
      agent: 'support',
      turns: [
        { user: 'Was kostet der Vollservice?', facts: ['Preis: 89 EUR'], escalate: false },
        {
          user: 'How much does a puncture repair cost?',
          facts: ['Puncture repair: 15 EUR'],
          forbidden: ['Basic service: 49'],
          escalate: false,
        },
        { user: 'Is the shop open on Sundays?', facts: ['Closed on Sundays'], escalate: false },
      ],
    },
    {
      id: 'fu-bike-onboarding',
      org: 'bike',
      agent: 'onboarding',
      short: true,
      turns: [
        {
          user: 'I want to create a beginner workshop series: Winter bike maintenance for Leipzig commuters',
          step: 1,
          facts: ['Your course: **Winter bike maintenance for Leipzig commuters**'],
          nextStep: 2,
        },
        { user: 'done', step: 1, facts: ['confirmed'], nextStep: 2 },
        {
          user: 'Four modules: Lights and visibility, Tyres and grip, Brakes in the wet, Chain care and cleaning',
          step: 2,
          facts: [
            '1. Lights and visibility\n2. Tyres and grip\n3. Brakes in the wet\n4. Chain care and cleaning',
          ],
          forbidden: ['5. ', '\n2. visibility'],
          nextStep: 3,
        },
        {
          user: 'We want to run it as an evening workshop series with a quiz',
          step: 4,
          facts: ['Winter bike maintenance for Leipzig commuters'],
          nextStep: 5,
        },
      ],
    },
    {
      id: 'fu-tickets-german-thread',
      org: 'tickets',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'Welche Konzerte gibt es dieses Wochenende in Hamburg?',
          facts: ['Elbphilharmonie Brahms Abend'],
          forbidden: except(tickets, ['Elbphilharmonie Brahms Abend']),
        },
        {
          user: 'und in München?',
          facts: ['Jazz im Unterfahrt'],
          forbidden: except(tickets, ['Jazz im Unterfahrt']),
        },
        {
          user: 'Was ist mit nächstem Wochenende?',
          facts: ['Weihnachtsoratorium'],
          forbidden: except(tickets, ['Weihnachtsoratorium']),
        },
        { user: 'Wie viel kostet das?', facts: ['39 EUR'] },
      ],
    },
    {
      id: 'fu-tickets-ordinals',
      org: 'tickets',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: "What's on in Munich this weekend?",
          facts: ['Jazz im Unterfahrt', 'Kasperle Puppentheater'],
          forbidden: except(tickets, ['Jazz im Unterfahrt', 'Kasperle Puppentheater']),
        },
        {
          user: 'tell me about the second one',
          facts: ['Kasperle Puppentheater'],
          forbidden: ['Jazz im Unterfahrt'],
        },
        { user: 'is it suitable for kids?', facts: ['Yes', 'Für die Kleinen ab 3'] },
        {
          user: 'and the first one?',
          facts: ['Jazz im Unterfahrt'],
          forbidden: ['Kasperle Puppentheater'],
        },
        { user: 'the third one', facts: ['2 items'] },
        {
          user: "forget that, what's on next weekend?",
          facts: ['Weihnachtsoratorium'],
          forbidden: ['forget', 'Jazz im Unterfahrt'],
        },
      ],
    },
    {
      id: 'fu-tickets-kids-widen',
      org: 'tickets',
      agent: 'chat',
      turns: [
        { user: 'Konzerte in München dieses Wochenende', facts: ['Jazz im Unterfahrt'] },
        {
          user: 'und was gibt es für Kinder?',
          facts: ['Kasperle Puppentheater'],
          forbidden: ['Jazz im Unterfahrt', 'Der kleine Prinz'],
        },
        { user: "c'est où ?", facts: ['Marionettentheater'] },
      ],
    },
    {
      id: 'fu-school-spanish',
      org: 'school',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: '¡Hola!',
          facts: ['cursos', 'Horario de secretaría'],
          forbidden: ['concert', 'event'],
        },
        {
          user: '¿Qué cursos tenéis para principiantes?',
          facts: ['Alemán A1', 'Français pour enfants'],
          forbidden: ['Inglés B2 intensivo'],
        },
        { user: '¿y el segundo?', facts: ['Français pour enfants'], forbidden: ['Alemán A1'] },
        { user: '¿cuánto cuesta?', facts: ['150 EUR'] },
        {
          user: '¿A qué hora abrís el lunes?',
          facts: ['Lunes a viernes de 10:00 a 14:00 y de 16:00 a 20:00'],
        },
        { user: '¿y el sábado?', facts: ['Sábados cerrado'], forbidden: ['Lunes'] },
        { user: '¿Dónde estáis?', facts: ['Calle Mayor 12, 28013 Madrid'] },
        { user: '¿Cuánto cuesta la matrícula?', facts: ['30 EUR'] },
      ],
    },
    {
      id: 'fu-school-french',
      org: 'school',
      agent: 'chat',
      turns: [
        { user: 'Bonjour', forbidden: ['concert', 'Madrid this weekend'] },
        {
          user: 'Quels cours pour enfants ?',
          facts: ['Français pour enfants'],
          forbidden: ['Alemán A1', 'Inglés B2 intensivo'],
        },
        { user: 'combien ça coûte ?', facts: ['150 EUR'] },
        { user: 'et vos horaires ?', facts: ['Lunes a viernes de 10:00 a 14:00'] },
        { user: 'Quelle est votre adresse ?', facts: ['Calle Mayor 12, 28013 Madrid'] },
        { user: 'merci !', facts: ["You're welcome"] },
      ],
    },
  ];
}
