/**
 * Three organizations made up for the evaluation suite: a ticketing company (events in four
 * cities), an academy (courses, onboarding of new courses) and an outdoor shop (help articles).
 * Nothing of them is known to the service; they are imported through the public API like a
 * customer's data.
 */

/** The suite's current time: Wednesday 10 March 2027, 10:00 UTC ("this weekend" is 13-14 March). */
export const SUITE_NOW = new Date('2027-03-10T10:00:00Z');

export interface EventRow {
  id: string;
  title: string;
  city: string;
  venue: string;
  startsAt: string;
  timeZone?: string;
  price: number;
  currency: string;
  tags: string[];
  description: string;
  url: string;
}

const ev = (row: Omit<EventRow, 'currency' | 'url'>): EventRow => ({
  ...row,
  currency: 'EUR',
  url: `https://tickets.taquillasol.example/e/${row.id}`,
});

export const TICKETING_EVENTS: EventRow[] = [
  ev({
    id: 'm0',
    title: 'Madrid Winter Market',
    city: 'Madrid',
    venue: 'Plaza Mayor',
    startsAt: '2027-03-06T11:00:00+01:00',
    price: 0,
    tags: ['market'],
    description: 'Stalls with crafts and food.',
  }),
  ev({
    id: 'm1',
    title: 'Mozart for Little Ones',
    city: 'Madrid',
    venue: 'Teatro Real',
    startsAt: '2027-03-13T11:00:00+01:00',
    price: 12,
    tags: ['concert', 'kids'],
    description:
      'A playful introduction to Mozart with puppets. Ages 3-8. The show lasts 50 minutes.',
  }),
  ev({
    id: 'm2',
    title: 'Flamenco Night at Corral',
    city: 'Madrid',
    venue: 'Corral de la Moreria',
    startsAt: '2027-03-13T21:30:00+01:00',
    price: 45,
    tags: ['dance'],
    description: 'Guitar, song and dance in a historic tablao. Dinner optional.',
  }),
  ev({
    id: 'm3',
    title: 'Retiro Puppet Festival',
    city: 'Madrid',
    venue: 'Parque del Retiro',
    startsAt: '2027-03-14T12:00:00+01:00',
    price: 0,
    tags: ['festival', 'kids'],
    description: 'Free open-air puppet shows for families. Ages 4 and up. Bring a blanket.',
  }),
  ev({
    id: 'm4',
    title: 'Jazz at Cafe Central',
    city: 'Madrid',
    venue: 'Cafe Central',
    startsAt: '2027-03-14T22:00:00+01:00',
    price: 18,
    tags: ['concert'],
    description: 'A late quartet set in a classic jazz bar. Over 18 only.',
  }),
  ev({
    id: 'm5',
    title: 'Science Museum Family Workshop',
    city: 'Madrid',
    venue: 'Museo de Ciencia',
    startsAt: '2027-03-20T10:00:00+01:00',
    price: 15,
    tags: ['workshop', 'kids'],
    description: 'Hands-on experiments for children aged 6-12.',
  }),
  ev({
    id: 'm6',
    title: 'Madrid Symphony: Beethoven 9',
    city: 'Madrid',
    venue: 'Auditorio Nacional',
    startsAt: '2027-03-21T19:00:00+01:00',
    price: 35,
    tags: ['concert'],
    description: 'The choral symphony with the city choir.',
  }),
  ev({
    id: 'm7',
    title: 'Comedy Club Madrid',
    city: 'Madrid',
    venue: 'La Chocita',
    startsAt: '2027-04-16T21:00:00+02:00',
    price: 20,
    tags: ['comedy'],
    description: 'Five comedians, one microphone. Spanish only.',
  }),
  ev({
    id: 'b1',
    title: 'Palau Guitar Concert',
    city: 'Barcelona',
    venue: 'Palau de la Musica',
    startsAt: '2027-03-13T20:00:00+01:00',
    price: 25,
    tags: ['concert'],
    description: 'Spanish guitar classics under the stained-glass skylight.',
  }),
  ev({
    id: 'b2',
    title: 'Sagrada Familia Choir',
    city: 'Barcelona',
    venue: 'Sagrada Familia',
    startsAt: '2027-03-14T18:00:00+01:00',
    price: 30,
    tags: ['concert'],
    description: 'Sacred music sung by the choir of the Sagrada Familia.',
  }),
  ev({
    id: 'b3',
    title: 'Circus for Kids Barcelona',
    city: 'Barcelona',
    venue: 'Circ Cric',
    startsAt: '2027-03-20T17:00:00+01:00',
    price: 10,
    tags: ['circus', 'kids'],
    description: 'Acrobats and clowns for children from 3.',
  }),
  ev({
    id: 'b4',
    title: 'Barcelona Food Festival',
    city: 'Barcelona',
    venue: 'Port Vell',
    startsAt: '2027-04-10T12:00:00+02:00',
    price: 0,
    tags: ['festival'],
    description: 'Tapas stands from forty local kitchens.',
  }),
  ev({
    id: 'l1',
    title: 'Fado at Alfama',
    city: 'Lisbon',
    venue: 'Clube de Fado',
    startsAt: '2027-03-13T21:00:00+00:00',
    timeZone: 'Europe/Lisbon',
    price: 22,
    tags: ['concert'],
    description: 'Traditional fado with a guitarra portuguesa.',
  }),
  ev({
    id: 'l2',
    title: 'Lisbon Aquarium Kids Morning',
    city: 'Lisbon',
    venue: 'Oceanario',
    startsAt: '2027-03-21T10:00:00+00:00',
    timeZone: 'Europe/Lisbon',
    price: 16,
    tags: ['kids'],
    description: 'A guided morning for families with children under 10.',
  }),
  ev({
    id: 'l3',
    title: 'Lisbon Jazz Weekend',
    city: 'Lisbon',
    venue: 'Hot Clube',
    startsAt: '2027-04-17T20:00:00+01:00',
    timeZone: 'Europe/Lisbon',
    price: 28,
    tags: ['concert'],
    description: 'Two nights of Portuguese jazz.',
  }),
  ev({
    id: 'v1',
    title: 'Fallas Fireworks Night',
    city: 'Valencia',
    venue: 'Plaza del Ayuntamiento',
    startsAt: '2027-03-14T23:00:00+01:00',
    price: 0,
    tags: ['festival'],
    description: 'The big fireworks of the Fallas. Very loud.',
  }),
  ev({
    id: 'v2',
    title: 'Valencia Opera: Carmen',
    city: 'Valencia',
    venue: 'Palau de les Arts',
    startsAt: '2027-03-20T19:30:00+01:00',
    price: 40,
    tags: ['theatre'],
    description: "Bizet's opera in a new staging.",
  }),
  // Untagged events whose description says who they are for, in the four languages, each way.
  ev({
    id: 'm8',
    title: 'Saturday Storytelling',
    city: 'Madrid',
    venue: 'Biblioteca Municipal',
    startsAt: '2027-03-14T17:00:00+01:00',
    price: 6,
    tags: ['theatre'],
    description: 'Cuentos y canciones para los más pequeños, con títeres.',
  }),
  ev({
    id: 'm9',
    title: 'Midnight Cabaret',
    city: 'Madrid',
    venue: 'Teatro Lara',
    startsAt: '2027-03-13T23:30:00+01:00',
    price: 28,
    tags: ['theatre'],
    description: 'Spicy songs and sketches. Not suitable for children.',
  }),
  ev({
    id: 'b5',
    title: 'Harbour Brass Morning',
    city: 'Barcelona',
    venue: 'Moll de la Fusta',
    startsAt: '2027-03-14T11:00:00+01:00',
    price: 32,
    tags: ['concert'],
    description: 'Un concert pour les enfants et leurs parents, au bord de la mer.',
  }),
  ev({
    id: 'b6',
    title: 'Gypsy Jazz Late Set',
    city: 'Barcelona',
    venue: 'Harlem Jazz Club',
    startsAt: '2027-04-17T22:30:00+02:00',
    price: 18,
    tags: ['concert'],
    description: 'Concert tardif dans un club, déconseillé aux enfants.',
  }),
  ev({
    id: 'l4',
    title: 'Puppet Afternoon',
    city: 'Lisbon',
    venue: 'Teatro Infantil de Lisboa',
    startsAt: '2027-03-20T16:00:00+00:00',
    timeZone: 'Europe/Lisbon',
    price: 9,
    tags: ['theatre'],
    description: 'Ein Puppenspiel für Kinder ab 4 Jahren, auf Deutsch.',
  }),
  ev({
    id: 'v4',
    title: 'Valencia Late Stand-up',
    city: 'Valencia',
    venue: 'Sala Russafa',
    startsAt: '2027-03-13T22:30:00+01:00',
    price: 15,
    tags: ['comedy'],
    description: 'Stand-up of a kind you have never seen. Keine Kinder, bitte.',
  }),
  ev({
    id: 'v3',
    title: 'Valencia Kids Science Day',
    city: 'Valencia',
    venue: 'Ciudad de las Ciencias',
    startsAt: '2027-04-24T10:00:00+02:00',
    price: 8,
    tags: ['workshop', 'kids'],
    description: 'Experiments and shows for children aged 5-11.',
  }),
];

/**
 * The events a person reading them would offer to a family with children, labelled by hand (tags
 * or not): the truth the suite checks "for kids" answers against, not derived by the code it tests.
 */
export const FOR_KIDS = new Set(['m1', 'm3', 'm5', 'b3', 'l2', 'v3', 'm8', 'b5', 'l4']);

export interface CourseRow {
  id: string;
  title: string;
  level: string;
  price: number;
  currency: string;
  description: string;
  url: string;
  modules: Array<{ title: string; lessons: Array<{ title: string }> }>;
}

const course = (
  row: Omit<CourseRow, 'currency' | 'url' | 'modules'> & { modules: string[] },
): CourseRow => ({
  ...row,
  currency: 'EUR',
  url: `https://brightpath.example/courses/${row.id}`,
  modules: row.modules.map((title) => ({ title, lessons: [] })),
});

export const EDUCATION_COURSES: CourseRow[] = [
  course({
    id: 'c1',
    title: 'Excel for Beginners',
    level: 'beginner',
    price: 49,
    description: 'For office staff who are new to spreadsheets. Four weeks, self-paced.',
    modules: ['Basics', 'Formulas', 'Charts'],
  }),
  course({
    id: 'c2',
    title: 'Data Visualisation with Python',
    level: 'intermediate',
    price: 129,
    description: 'For analysts who already know basic Python. Six weeks with a mentor.',
    modules: ['Matplotlib', 'Seaborn', 'Dashboards'],
  }),
  course({
    id: 'c3',
    title: 'Photography Fundamentals',
    level: 'beginner',
    price: 79,
    description: 'For hobby photographers with any camera, even a phone. Five weeks.',
    modules: ['Light', 'Composition', 'Editing'],
  }),
  course({
    id: 'c4',
    title: 'Advanced Project Management',
    level: 'advanced',
    price: 199,
    description: 'For team leads with two years of experience. Eight weeks, live sessions.',
    modules: ['Risk', 'Budgets', 'Stakeholders'],
  }),
  course({
    id: 'c5',
    title: 'Spanish for Travellers',
    level: 'beginner',
    price: 59,
    description: 'Everyday phrases for trips. Ages 16 and up. Four weeks.',
    modules: ['Greetings', 'Restaurants', 'Directions'],
  }),
  course({
    id: 'c6',
    title: 'Web Accessibility Essentials',
    level: 'intermediate',
    price: 89,
    description: 'For web developers who build public sites. Three weeks.',
    modules: ['Semantics', 'Keyboard', 'Testing'],
  }),
];

export interface ArticleRow {
  id: string;
  title: string;
  body: string;
  url: string;
  tags: string[];
}

const article = (id: string, title: string, body: string, tags: string[]): ArticleRow => ({
  id,
  title,
  body,
  tags,
  url: `https://help.nordkette.example/${id}`,
});

export const SHOP_ARTICLES: ArticleRow[] = [
  article(
    'returns',
    'Returns and refunds',
    'You can return unused items within 30 days of delivery.\n\nTo request a refund:\n1. Sign in and open Orders.\n2. Choose the order and select Return items.\n3. Print the prepaid label and drop the parcel at any post office.\n\nYour money reaches your original payment method within 5 business days after the parcel arrives at our warehouse.\n\nTags: refund, policy, returns',
    ['refund', 'returns'],
  ),
  article(
    'shipping',
    'Shipping times',
    'Orders ship from our Innsbruck warehouse within 1 business day.\n\nStandard delivery takes 2-4 business days in Austria and Germany, 4-7 business days elsewhere in the EU.\n\nExpress delivery arrives the next business day when you order before 14:00.\n\nTags: shipping, delivery',
    ['shipping'],
  ),
  article(
    'warranty',
    'Warranty claims',
    'All tents and backpacks carry a two-year warranty against manufacturing defects.\n\nTo make a warranty claim:\n1. Take photos of the defect.\n2. Write to us with your order number and the photos.\n3. We send a prepaid label or a repair voucher within 3 business days.\n\nCategory: warranty',
    ['warranty'],
  ),
  article(
    'change-order',
    'Changing or cancelling an order',
    'You can change or cancel an order until it is packed, usually within 2 hours of ordering.\n\n1. Open Orders.\n2. Select the order and choose Cancel or Edit.\n\nOnce the order is packed, return the items after delivery instead.',
    ['cancel', 'change'],
  ),
  article(
    'payment',
    'Payment methods',
    'We accept credit cards, PayPal and bank transfer. Klarna invoices are available in Austria and Germany. Your card is charged when the order ships, not when you place it.',
    ['payment'],
  ),
  article(
    'sizing',
    'Boot sizing guide',
    'Measure your foot in the evening, standing, with the socks you hike in. If you are between two sizes, choose the larger size. For wide feet, look for the W mark on the product page.',
    ['boots', 'sizing'],
  ),
  article(
    'store-hours',
    'Store opening hours',
    'Our Innsbruck store opens Monday to Saturday from 9:00 to 18:00. It is closed on Sundays and public holidays.',
    ['store'],
  ),
  article(
    'gift-cards',
    'Gift cards',
    'Gift cards are valid for three years and can be used online and in our store. They cannot be exchanged for cash.',
    ['gift'],
  ),
];

export const SHOP_ESCALATION = {
  message:
    "I've handed your conversation to the Nordkette service team; they answer within one working day.",
  contact: 'service@nordkette.example',
  channel: 'email',
};

/** Text of the vendor's own demo data and contacts: never in any organization's answer. */
export const VENDOR_STRINGS = [
  'switchyard.dev',
  'Berliner Philharmoniker',
  'Python for Data Analysis',
  'Philharmonie Berlin',
  'support@switchyard',
  'Harbour Rock Festival',
];

export interface SuiteOrganization {
  id: string;
  name: string;
  timeZone: string;
  /** Strings of this organization's data (other organizations' answers must not contain them). */
  own: string[];
}

export const ORGANIZATIONS: Record<'ticketing' | 'education' | 'shop', SuiteOrganization> = {
  ticketing: {
    id: 'eval-taquilla-sol',
    name: 'Taquilla Sol',
    timeZone: 'Europe/Madrid',
    own: TICKETING_EVENTS.map((e) => e.title),
  },
  education: {
    id: 'eval-brightpath',
    name: 'Brightpath Academy',
    timeZone: 'Europe/London',
    own: EDUCATION_COURSES.map((c) => c.title),
  },
  shop: {
    id: 'eval-nordkette',
    name: 'Nordkette Outdoor',
    timeZone: 'Europe/Vienna',
    own: SHOP_ARTICLES.map((a) => a.title).concat(['nordkette.example']),
  },
};
