import { importCollection, ok, type EvalOrganization } from '../eval-set';

/**
 * Three businesses the held-out set runs on, each loaded the way its owner would: files as they
 * keep them (CSV, JSON Lines) and a JSON batch. Their date: Tuesday 1 December 2026, 10:00 in
 * Leipzig ("this weekend" is 5-6 December, "next week" 7-13 December).
 */
export const HELD_OUT_NOW = new Date('2026-12-01T09:00:00Z');

// Speichenwerk: a bicycle repair shop in Leipzig.
export const SPEICHENWERK_ESCALATION = {
  message: 'Our workshop team will get back to you within one working day.',
  contact: '+49 341 2470815 or werkstatt@speichenwerk.example',
  channel: 'phone',
};

const SPEICHENWERK_SERVICES_CSV = `id,title,text,url,tags
full-service,Full service (Komplettinspektion),"Full service: 89 EUR. Brakes and gears adjusted, wheels trued, chain cleaned and oiled, all bolts checked. Ready in 2 working days (2 Werktage).",https://speichenwerk.example/service/full,service
puncture,Puncture repair (Reifenpanne),"Puncture repair: 15 EUR including a new inner tube. Usually done while you wait, in about 30 minutes.",https://speichenwerk.example/service/puncture,service
brakes,Brake adjustment (Bremsen einstellen),"Brake adjustment: 25 EUR per bike, pads not included. Hydraulic brakes bled for 35 EUR per brake.",https://speichenwerk.example/service/brakes,service
ebike-check,E-bike check (E-Bike-Inspektion),"E-bike check: 119 EUR. Full service plus motor and battery diagnosis with the maker's software.",https://speichenwerk.example/service/ebike,service|e-bike
wheel,Wheel truing (Laufrad zentrieren),"Wheel truing: 20 EUR per wheel. Broken spokes replaced for 4 EUR each.",https://speichenwerk.example/service/wheel,service
`;

const SPEICHENWERK_INFO = [
  {
    id: 'hours',
    title: 'Opening hours',
    body: 'Our workshop is open Monday to Friday 9:00-18:00 and Saturday 10:00-14:00. Closed on Sundays and public holidays.',
    url: 'https://speichenwerk.example/hours',
    tags: ['hours'],
  },
  {
    id: 'visit',
    title: 'Address and contact',
    body: 'Speichenwerk, Karl-Heine-Straße 42, 04229 Leipzig (Plagwitz). Tram 14 to Karl-Heine-/Merseburger Straße. Phone +49 341 2470815, email werkstatt@speichenwerk.example.',
    url: 'https://speichenwerk.example/contact',
    tags: ['contact'],
  },
  {
    id: 'repairs',
    title: 'How repairs work',
    body: 'You can bring your bike in without an appointment during opening hours. We call you with a quote before any work over 50 EUR. Please pick up your bike within 14 days of our call. Every repair has a 6 month warranty. We take card and cash.',
    url: 'https://speichenwerk.example/repairs',
    tags: ['policy'],
  },
  {
    id: 'ebikes',
    title: 'E-bikes',
    body: 'We service e-bikes of all brands. We do not repair batteries: a faulty battery goes to its maker, which takes about three weeks.',
    url: 'https://speichenwerk.example/ebikes',
    tags: ['e-bike'],
  },
];

const workshop = (
  id: string,
  title: string,
  startsAt: string,
  price: number,
  description: string,
  tags: string[] = ['workshop'],
) => ({
  id,
  title,
  startsAt,
  timeZone: 'Europe/Berlin',
  venue: 'Speichenwerk, Karl-Heine-Straße 42',
  city: 'Leipzig',
  price,
  currency: 'EUR',
  url: `https://speichenwerk.example/workshops/${id}`,
  tags,
  description,
});

export const SPEICHENWERK_WORKSHOPS = [
  workshop(
    'winter-commute',
    'Winter maintenance for commuters',
    '2026-12-03T18:30:00+01:00',
    25,
    'Keep your bike running through the Leipzig winter: lights, brakes, chain care and tyres for wet roads. For adults.',
  ),
  workshop(
    'flat-tyre',
    'Flat tyre basics',
    '2026-12-05T10:30:00+01:00',
    0,
    'Learn to fix a puncture in 20 minutes. Bring your own bike. Adults and teenagers.',
  ),
  workshop(
    'open-evening',
    'Evening repair session',
    '2026-12-08T19:00:00+01:00',
    12,
    'Open workshop evening: use our tools and repair stands with a mechanic on hand.',
  ),
  workshop(
    'kids',
    'Kids bike workshop',
    '2026-12-12T11:00:00+01:00',
    15,
    'For kids aged 8 to 12: check your own bike, pump the tyres, set the saddle height. A parent stays with the child.',
    ['workshop', 'kids'],
  ),
  workshop(
    'battery-care',
    'E-bike battery care',
    '2026-12-16T18:00:00+01:00',
    20,
    'How to store, charge and winterise e-bike batteries.',
  ),
];

export const SPEICHENWERK: EvalOrganization = {
  id: 'heldout-speichenwerk',
  name: 'Speichenwerk Leipzig',
  timeZone: 'Europe/Berlin',
  own: ['Speichenwerk', 'Karl-Heine', ...SPEICHENWERK_WORKSHOPS.map((w) => w.title)],
  escalation: SPEICHENWERK_ESCALATION,
  async load(api) {
    await importCollection(
      api,
      { name: 'leistungen', kind: 'documents' },
      { csv: SPEICHENWERK_SERVICES_CSV },
    );
    await importCollection(api, { name: 'info', kind: 'articles' }, { jsonl: SPEICHENWERK_INFO });
    await importCollection(
      api,
      { name: 'workshops', kind: 'events' },
      { json: SPEICHENWERK_WORKSHOPS },
    );
    await ok(
      'speichenwerk support',
      api('/api/v2/agents/support', {
        method: 'PUT',
        body: { escalation: SPEICHENWERK_ESCALATION },
      }),
    );
  },
};

// Entradas Sur: a ticket seller in Andalusia.
export const ENTRADAS_ESCALATION = {
  message: 'Un agente de Entradas Sur le contactará en menos de 24 horas.',
  contact: 'ayuda@entradassur.example',
  channel: 'email',
};

export const ENTRADAS_EVENTS = [
  [
    'e1',
    'Noche de flamenco en Triana',
    'Sevilla',
    'Casa Anselma',
    '2026-12-05T21:00:00+01:00',
    30,
    'flamenco',
    'Cante, toque y baile en el corazón de Triana.',
  ],
  [
    'e2',
    'Cuentacuentos para peques',
    'Sevilla',
    'Biblioteca Infanta Elena',
    '2026-12-06T11:30:00+01:00',
    6,
    'infantil',
    'Cuentos de invierno para niños de 3 a 7 años.',
  ],
  [
    'e3',
    'Concierto de guitarra clásica',
    'Málaga',
    'Teatro Echegaray',
    '2026-12-05T20:00:00+01:00',
    18,
    'concierto',
    'Obras de Tárrega y Albéniz.',
  ],
  [
    'e4',
    'Títeres en el parque',
    'Málaga',
    'Parque de Málaga',
    '2026-12-06T12:00:00+01:00',
    0,
    'infantil',
    'Espectáculo de títeres al aire libre para toda la familia.',
  ],
  [
    'e5',
    'Jazz en la Alhambra',
    'Granada',
    'Palacio de Carlos V',
    '2026-12-12T21:30:00+01:00',
    25,
    'concierto',
    'Cuarteto de jazz con invitados.',
  ],
  [
    'e6',
    'Mercado navideño',
    'Granada',
    'Plaza Bib-Rambla',
    '2026-12-05T10:00:00+01:00',
    0,
    'mercado',
    'Puestos de artesanía y dulces de Navidad.',
  ],
  [
    'e7',
    'Orquesta joven de Sevilla',
    'Sevilla',
    'Teatro de la Maestranza',
    '2026-12-12T19:00:00+01:00',
    12,
    'concierto',
    'Beethoven y Falla por la orquesta joven de la ciudad.',
  ],
] as const;

const csvCell = (value: string | number) =>
  typeof value === 'number' || !/[",\n]/.test(value)
    ? String(value)
    : `"${value.replace(/"/g, '""')}"`;

const ENTRADAS_CSV = [
  'id,title,city,venue,startsAt,price,currency,url,tags,description',
  ...ENTRADAS_EVENTS.map(([id, title, city, venue, startsAt, price, tag, description]) =>
    [
      id,
      title,
      city,
      venue,
      startsAt,
      price,
      'EUR',
      `https://entradassur.example/e/${id}`,
      tag,
      description,
    ]
      .map(csvCell)
      .join(','),
  ),
].join('\n');

export const ENTRADAS_SUR: EvalOrganization = {
  id: 'heldout-entradas-sur',
  name: 'Entradas Sur',
  timeZone: 'Europe/Madrid',
  own: ['entradassur', ...ENTRADAS_EVENTS.map((e) => e[1])],
  escalation: ENTRADAS_ESCALATION,
  async load(api) {
    await importCollection(api, { name: 'eventos', kind: 'events' }, { csv: ENTRADAS_CSV });
    await ok(
      'entradas support',
      api('/api/v2/agents/support', { method: 'PUT', body: { escalation: ENTRADAS_ESCALATION } }),
    );
  },
};

// Atelier Gourmand: a cooking school in Lyon, its prices in articles beside its classes.
export const ATELIER_ESCALATION = {
  message: 'Notre équipe vous rappelle dans la journée.',
  contact: '+33 4 78 00 12 34',
  channel: 'phone',
};

const ATELIER_ARTICLES = [
  {
    id: 'tarifs',
    title: 'Tarifs',
    body: 'Cours de cuisine (3 heures) : 65 €.\nCours enfants (1 h 30) : 30 €.\nCarte 5 cours : 290 €.\nBon cadeau : valable 1 an, à partir de 65 €.',
    url: 'https://atelier-gourmand.example/tarifs',
  },
  {
    id: 'annulation',
    title: 'Annulation',
    body: "Vous pouvez annuler gratuitement jusqu'à 48 heures avant le cours. Après ce délai, le cours reste dû, mais vous pouvez envoyer quelqu'un à votre place.",
    url: 'https://atelier-gourmand.example/annulation',
  },
  {
    id: 'acces',
    title: 'Accès',
    body: "12 rue Mercière, 69002 Lyon. Métro Cordeliers. Parking Saint-Antoine à 200 mètres. L'atelier est au premier étage, avec ascenseur.",
    url: 'https://atelier-gourmand.example/acces',
  },
];

const cookingClass = (
  id: string,
  title: string,
  startsAt: string,
  price: number,
  description: string,
  tags: string[] = ['cours'],
) => ({
  id,
  title,
  startsAt,
  venue: 'Atelier Gourmand, 12 rue Mercière',
  city: 'Lyon',
  price,
  currency: 'EUR',
  url: `https://atelier-gourmand.example/cours/${id}`,
  tags,
  description,
});

export const ATELIER_CLASSES = [
  cookingClass(
    'lyonnaise',
    'Cuisine lyonnaise traditionnelle',
    '2026-12-05T10:00:00+01:00',
    65,
    'Quenelles, sauce Nantua et tarte aux pralines, en trois heures.',
  ),
  cookingClass(
    'noel',
    'Pâtisserie de Noël',
    '2026-12-09T18:30:00+01:00',
    65,
    'Bûche et petits gâteaux de fête.',
  ),
  cookingClass(
    'enfants',
    'Atelier enfants : biscuits',
    '2026-12-12T14:00:00+01:00',
    30,
    'Pour les enfants de 6 à 11 ans : biscuits décorés à emporter.',
    ['cours', 'enfants'],
  ),
  cookingClass(
    'sushi',
    'Sushi et makis',
    '2026-12-11T19:00:00+01:00',
    65,
    'Riz, découpe du poisson et roulage.',
  ),
];

export const ATELIER_GOURMAND: EvalOrganization = {
  id: 'heldout-atelier-gourmand',
  name: 'Atelier Gourmand',
  timeZone: 'Europe/Paris',
  own: ['atelier-gourmand', 'Mercière', ...ATELIER_CLASSES.map((c) => c.title)],
  escalation: ATELIER_ESCALATION,
  async load(api) {
    await importCollection(api, { name: 'infos', kind: 'articles' }, { jsonl: ATELIER_ARTICLES });
    await importCollection(api, { name: 'cours', kind: 'events' }, { json: ATELIER_CLASSES });
    await ok(
      'atelier support',
      api('/api/v2/agents/support', { method: 'PUT', body: { escalation: ATELIER_ESCALATION } }),
    );
  },
};
