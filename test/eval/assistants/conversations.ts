import {
  EDUCATION_COURSES,
  FOR_KIDS,
  SHOP_ARTICLES,
  SHOP_ESCALATION,
  SUITE_NOW,
  TICKETING_EVENTS,
  type EventRow,
} from './organizations';

export interface TurnCheck {
  /** What the user says. */
  user: string;
  /** Onboarding only. */
  step?: number;
  /** Strings (titles, ids, phrases) that must appear in the reply. */
  facts?: string[];
  /** Strings that must not appear (wrong city or date, the whole article, other items). */
  forbidden?: string[];
  /** Whether this turn hands the conversation to a person (support_escalated). */
  escalate?: boolean;
  /** The expected next_step (null after the last step). */
  nextStep?: number | null;
}

export interface Conversation {
  id: string;
  org: 'ticketing' | 'education' | 'shop';
  agent: string;
  /** Part of the short form that CI runs. */
  short?: boolean;
  turns: TurnCheck[];
}

/** The suite's weekends and months, as instants in Europe/Madrid (UTC+1 in March). */
const WINDOWS = {
  'this weekend': [
    Date.parse('2027-03-13T00:00:00+01:00'),
    Date.parse('2027-03-15T00:00:00+01:00'),
  ],
  'next weekend': [
    Date.parse('2027-03-20T00:00:00+01:00'),
    Date.parse('2027-03-22T00:00:00+01:00'),
  ],
  'in April': [Date.parse('2027-04-01T00:00:00+02:00'), Date.parse('2027-05-01T00:00:00+02:00')],
} as const;
const isKids = (e: EventRow) => FOR_KIDS.has(e.id);
const upcoming = (e: EventRow) => Date.parse(e.startsAt) >= SUITE_NOW.getTime();
const byStart = (a: EventRow, b: EventRow) => Date.parse(a.startsAt) - Date.parse(b.startsAt);

function within(city: string, window: keyof typeof WINDOWS): EventRow[] {
  const [from, to] = WINDOWS[window];
  return TICKETING_EVENTS.filter(
    (e) =>
      e.city === city &&
      upcoming(e) &&
      Date.parse(e.startsAt) >= from &&
      Date.parse(e.startsAt) < to,
  ).sort(byStart);
}

const titles = (events: EventRow[]) => events.map((e) => e.title);
const others = (keep: EventRow[]) => titles(TICKETING_EVENTS.filter((e) => !keep.includes(e)));

/** A list answer: every expected title, none of the others; "couldn't find" when nothing fits. */
function listed(expected: EventRow[]): Pick<TurnCheck, 'facts' | 'forbidden'> {
  return expected.length > 0
    ? { facts: titles(expected), forbidden: others(expected) }
    : { facts: ["couldn't find"], forbidden: titles(TICKETING_EVENTS) };
}

function ticketing(): Conversation[] {
  const conversations: Conversation[] = [
    {
      id: 'tk-follow-up-thread',
      org: 'ticketing',
      agent: 'chat',
      short: true,
      turns: [
        { user: "What's on this weekend in Madrid?", ...listed(within('Madrid', 'this weekend')) },
        {
          user: 'Anything for kids under 20 euros?',
          ...listed(within('Madrid', 'this weekend').filter((e) => isKids(e) && e.price <= 20)),
        },
        {
          user: 'Tell me more about the second one',
          facts: ['Retiro Puppet Festival', 'Ages 4 and up'],
          forbidden: ['Mozart for Little Ones', 'Jazz at Cafe Central'],
        },
        {
          user: 'What ages is Mozart for Little Ones for?',
          facts: ['Ages 3-8'],
          forbidden: ['Flamenco Night at Corral', 'Jazz at Cafe Central', 'Retiro Puppet Festival'],
        },
        { user: 'Thanks!', forbidden: ['Fado at Alfama'] },
      ],
    },
    {
      id: 'tk-spanish-barcelona',
      org: 'ticketing',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: '¿Qué conciertos hay en Barcelona este fin de semana?',
          ...listed(within('Barcelona', 'this weekend').filter((e) => e.tags.includes('concert'))),
        },
        {
          user: '¿y el próximo fin de semana?',
          facts: ["couldn't find"],
          forbidden: titles(TICKETING_EVENTS),
        },
      ],
    },
    {
      id: 'tk-venue-time-zone',
      org: 'ticketing',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'What is on in Lisbon this weekend?',
          facts: ['Fado at Alfama', '21:00'],
          forbidden: ['22:00', ...others(within('Lisbon', 'this weekend'))],
        },
        { user: 'How much is it?', facts: ['22 EUR'], forbidden: ['Palau Guitar Concert'] },
      ],
    },
    {
      id: 'tk-greeting',
      org: 'ticketing',
      agent: 'chat',
      short: true,
      turns: [{ user: 'Hello!', facts: ['Hello'], forbidden: titles(TICKETING_EVENTS) }],
    },
    {
      id: 'tk-cheaper-one',
      org: 'ticketing',
      agent: 'chat',
      turns: [
        {
          user: 'Concerts in Barcelona this weekend',
          ...listed(within('Barcelona', 'this weekend').filter((e) => e.tags.includes('concert'))),
        },
        {
          user: 'Which is the cheaper one?',
          facts: ['Palau Guitar Concert'],
          forbidden: ['Sagrada Familia Choir -'],
        },
      ],
    },
    {
      id: 'tk-city-switch-keeps-dates',
      org: 'ticketing',
      agent: 'chat',
      turns: [
        {
          user: "What's on in Valencia next weekend?",
          ...listed(within('Valencia', 'next weekend')),
        },
        { user: 'And in Barcelona?', ...listed(within('Barcelona', 'next weekend')) },
        { user: 'What about Madrid?', ...listed(within('Madrid', 'next weekend')) },
      ],
    },
    {
      id: 'tk-free',
      org: 'ticketing',
      agent: 'chat',
      turns: [
        {
          user: 'Any free events in Madrid this weekend?',
          ...listed(within('Madrid', 'this weekend').filter((e) => e.price === 0)),
        },
        { user: 'Is it suitable for kids?', facts: ['Retiro Puppet Festival', 'families'] },
      ],
    },
    {
      id: 'tk-german',
      org: 'ticketing',
      agent: 'chat',
      turns: [
        {
          user: 'Was gibt es am Wochenende in Madrid für Kinder?',
          ...listed(within('Madrid', 'this weekend').filter(isKids)),
        },
      ],
    },
    {
      id: 'tk-french',
      org: 'ticketing',
      agent: 'chat',
      turns: [
        {
          user: 'Quels concerts à Barcelona ce week-end ?',
          ...listed(within('Barcelona', 'this weekend').filter((e) => e.tags.includes('concert'))),
        },
      ],
    },
    {
      id: 'tk-past-never-shown',
      org: 'ticketing',
      agent: 'chat',
      turns: [{ user: 'Any markets in Madrid?', forbidden: ['Madrid Winter Market'] }],
    },
  ];
  // Every city and span, asked in English then narrowed to kids and thanked.
  for (const city of ['Madrid', 'Barcelona', 'Lisbon', 'Valencia'])
    for (const window of Object.keys(WINDOWS) as Array<keyof typeof WINDOWS>) {
      const all = within(city, window);
      const kids = all.filter(isKids);
      conversations.push({
        id: `tk-${city.toLowerCase()}-${window.replace(' ', '-').toLowerCase()}`,
        org: 'ticketing',
        agent: 'chat',
        short: city === 'Madrid' && window === 'next weekend',
        turns: [
          { user: 'Hi there', forbidden: titles(TICKETING_EVENTS) },
          { user: `What's on in ${city} ${window}?`, ...listed(all) },
          { user: 'anything for kids?', ...listed(kids) },
          kids.length > 0
            ? { user: 'tell me more about the first one', facts: [kids[0]!.title, kids[0]!.venue] }
            : { user: 'ok, never mind' },
          { user: 'thank you' },
        ],
      });
    }
  // The same questions in Spanish.
  for (const [city, local] of [
    ['Madrid', 'Madrid'],
    ['Barcelona', 'Barcelona'],
    ['Valencia', 'Valencia'],
    ['Lisbon', 'Lisbon'],
  ] as const) {
    const all = within(city, 'this weekend');
    conversations.push({
      id: `tk-es-${city.toLowerCase()}`,
      org: 'ticketing',
      agent: 'chat',
      turns: [
        { user: `¿Qué hay en ${local} este fin de semana?`, ...listed(all) },
        { user: '¿Algo para niños?', ...listed(all.filter(isKids)) },
      ],
    });
  }
  return conversations;
}

function education(): Conversation[] {
  const beginners = EDUCATION_COURSES.filter((c) => c.level === 'beginner');
  const conversations: Conversation[] = [
    {
      id: 'ed-beginners-thread',
      org: 'education',
      agent: 'chat',
      short: true,
      turns: [
        {
          user: 'Which courses do you have for beginners?',
          facts: beginners.map((c) => c.title),
          forbidden: EDUCATION_COURSES.filter((c) => c.level !== 'beginner').map((c) => c.title),
        },
        { user: 'Tell me more about the second one', facts: [beginners[1]!.title, 'any camera'] },
        { user: 'How much is it?', facts: ['79 EUR'] },
      ],
    },
    {
      id: 'ed-onboarding-full',
      org: 'education',
      agent: 'onboarding',
      short: true,
      turns: [
        {
          user: 'I would like to create a course on budgeting for students',
          step: 1,
          facts: ['budgeting'],
          nextStep: 2,
        },
        { user: 'done', step: 1, facts: ['confirmed'], nextStep: 2 },
        {
          user: 'Module 1 Income\nModule 2 Spending\nModule 3 Dashboards',
          step: 2,
          facts: ['Module 3 Dashboards', 'Module 1 Income'],
          forbidden: ['Matplotlib', 'Excel for Beginners'],
          nextStep: 3,
        },
        { user: 'done', step: 2, facts: ['confirmed'], nextStep: 3 },
        {
          user: 'A weekly spreadsheet exercise and a final budget plan',
          step: 3,
          facts: ['weekly spreadsheet exercise'],
          nextStep: 4,
        },
        {
          user: 'Quizzes after each module and a forum',
          step: 4,
          facts: ['Quizzes after each module', 'step 3'],
          nextStep: 5,
        },
        {
          user: 'Launch on 1 September with an email to all first-year students',
          step: 5,
          facts: ['1 September'],
          nextStep: null,
        },
      ],
    },
    {
      id: 'ed-onboarding-jump-ahead',
      org: 'education',
      agent: 'onboarding',
      short: true,
      turns: [
        {
          user: 'We want quizzes and a discussion forum',
          step: 4,
          facts: ['step 1', 'step 2', 'step 3', 'quizzes and a discussion forum'],
          nextStep: 5,
        },
        {
          user: 'The course is about bird watching',
          step: 1,
          facts: ['bird watching'],
          nextStep: 2,
        },
      ],
    },
    {
      id: 'ed-custom-steps',
      org: 'education',
      agent: 'enrolment',
      turns: [
        {
          user: 'I want to enrol',
          step: 1,
          facts: ['Choose a course', 'which course'],
          forbidden: [
            'Choose a course\n\nPick the course the learner wants to join.\n\nyou know which course',
          ],
          nextStep: 2,
        },
        {
          user: 'Photography Fundamentals',
          step: 1,
          facts: ['Photography Fundamentals'],
          nextStep: 2,
        },
        { user: 'done', step: 1, facts: ['confirmed'], nextStep: 2 },
      ],
    },
    {
      id: 'ed-no-support-articles',
      org: 'education',
      agent: 'support',
      turns: [
        {
          user: 'How do I reset my password?',
          facts: ["I can't help with that here"],
          forbidden: ['switchyard'],
          escalate: false,
        },
      ],
    },
  ];
  const topics: Array<[string, string]> = [
    ["I'd like to teach watercolour painting to retirees", 'watercolour painting'],
    ['Topic: negotiation skills for nurses', 'negotiation skills'],
    ['It will be about home composting', 'home composting'],
    ['Beekeeping basics for city dwellers', 'Beekeeping basics'],
    ['my course is on public speaking for engineers', 'public speaking'],
  ];
  topics.forEach(([said, topic], i) =>
    conversations.push({
      id: `ed-topic-${i + 1}`,
      org: 'education',
      agent: 'onboarding',
      short: i === 0,
      turns: [
        { user: said, step: 1, facts: [topic], nextStep: 2 },
        {
          user: `Modules: Getting started, Practice, Module 3 Review`,
          step: 2,
          facts: ['Module 3 Review', topic],
          nextStep: 3,
        },
        { user: 'done', step: 2, facts: ['confirmed', 'step 1'], nextStep: 3 },
      ],
    }),
  );
  for (const c of EDUCATION_COURSES)
    conversations.push({
      id: `ed-course-${c.id}`,
      org: 'education',
      agent: 'chat',
      turns: [
        { user: 'Good morning' },
        { user: `Tell me about ${c.title}`, facts: [c.title, c.url] },
        { user: 'How much does it cost?', facts: [`${c.price} EUR`] },
        { user: 'Who is it for?', facts: [c.description.split('.')[0]!] },
      ],
    });
  return conversations;
}

function shop(): Conversation[] {
  const conversations: Conversation[] = [
    {
      id: 'sh-greetings-never-escalate',
      org: 'shop',
      agent: 'support',
      short: true,
      turns: [
        { user: 'hello', escalate: false },
        { user: 'Hola, buenos días', escalate: false },
        { user: 'thanks!', escalate: false },
      ],
    },
    {
      id: 'sh-refund-quoted-not-dumped',
      org: 'shop',
      agent: 'support',
      short: true,
      turns: [
        {
          user: 'How do I return something for a refund?',
          facts: ['Print the prepaid label', 'Returns and refunds'],
          forbidden: ['Tags:', 'refund, policy'],
          escalate: false,
        },
        {
          user: 'How long until my money is back?',
          facts: ['5 business days'],
          forbidden: ['Tags:', 'Print the prepaid label'],
          escalate: false,
        },
      ],
    },
    {
      id: 'sh-off-topic-then-repeated',
      org: 'shop',
      agent: 'support',
      short: true,
      turns: [
        {
          user: 'Can I bring my dog?',
          facts: ["I can't help with that here", 'person'],
          forbidden: ['Store opening hours', 'Boot sizing'],
          escalate: false,
        },
        { user: 'Do you rent kayaks?', facts: [SHOP_ESCALATION.contact], escalate: true },
      ],
    },
    {
      id: 'sh-billing-anger',
      org: 'shop',
      agent: 'support',
      short: true,
      turns: [
        {
          user: 'I was charged twice for my order and nobody answers!!',
          facts: [SHOP_ESCALATION.contact, 'order or booking number'],
          forbidden: ['support@switchyard.dev'],
          escalate: true,
        },
        { user: 'A-10492', facts: ['A-10492'], escalate: false },
      ],
    },
    {
      id: 'sh-human-request',
      org: 'shop',
      agent: 'support',
      turns: [
        { user: 'Good evening', escalate: false },
        {
          user: 'I want to talk to a real person please',
          facts: ['Nordkette service team'],
          escalate: true,
        },
        { user: 'my order number is 55821', facts: ['55821'], escalate: false },
      ],
    },
    {
      id: 'sh-offer-accepted',
      org: 'shop',
      agent: 'support',
      turns: [
        {
          user: 'Do you have a loyalty programme?',
          facts: ["I can't help with that here"],
          escalate: false,
        },
        { user: 'yes please', facts: ['Nordkette service team'], escalate: true },
      ],
    },
    {
      id: 'sh-offer-declined',
      org: 'shop',
      agent: 'support',
      turns: [
        {
          user: 'Is there a bike repair workshop?',
          facts: ["I can't help with that here"],
          escalate: false,
        },
        { user: 'no thanks', escalate: false },
        { user: 'When is the store open on Saturday?', facts: ['9:00 to 18:00'], escalate: false },
      ],
    },
    {
      id: 'sh-frustration-german',
      org: 'shop',
      agent: 'support',
      turns: [
        {
          user: 'Das ist eine Frechheit, niemand antwortet auf meine Mails',
          facts: [SHOP_ESCALATION.contact],
          escalate: true,
        },
      ],
    },
  ];
  const questions: Record<string, Array<[string, string]>> = {
    returns: [
      ['Can I return boots I never wore?', '30 days'],
      ['How do I get a refund for my order?', 'prepaid label'],
    ],
    shipping: [
      ['How long does standard delivery to Germany take?', '2-4 business days'],
      ['When does express delivery arrive?', 'next business day'],
    ],
    warranty: [
      ['My tent has a broken seam, is there a warranty?', 'two-year warranty'],
      ['How do I make a warranty claim?', 'photos of the defect'],
    ],
    'change-order': [
      ['Can I cancel my order?', 'until it is packed'],
      ['How do I change an order I just placed?', 'Cancel or Edit'],
    ],
    payment: [
      ['Do you accept PayPal?', 'PayPal'],
      ['When is my card charged?', 'when the order ships'],
    ],
    sizing: [
      ['Which boot size should I choose between two sizes?', 'larger size'],
      ['I have wide feet, which boots fit?', 'W mark'],
    ],
    'store-hours': [
      ['Is the store open on Sundays?', 'closed on Sundays'],
      ['What are the store opening hours?', '9:00 to 18:00'],
    ],
    'gift-cards': [
      ['How long is a gift card valid?', 'three years'],
      ['Can I exchange a gift card for cash?', 'cannot be exchanged'],
    ],
  };
  for (const a of SHOP_ARTICLES) {
    const [[q1, f1], [q2, f2]] = questions[a.id] as [[string, string], [string, string]];
    const unrelated = SHOP_ARTICLES.filter((o) => o.id !== a.id).map((o) => o.title);
    conversations.push({
      id: `sh-article-${a.id}`,
      org: 'shop',
      agent: 'support',
      short: a.id === 'shipping',
      turns: [
        { user: 'Hi', escalate: false },
        {
          user: q1,
          facts: [f1, a.title],
          forbidden: ['Tags:', 'Category:', ...unrelated],
          escalate: false,
        },
        { user: 'thank you', escalate: false },
      ],
    });
    conversations.push({
      id: `sh-article-${a.id}-again`,
      org: 'shop',
      agent: 'support',
      turns: [
        { user: 'Good morning', escalate: false },
        { user: q2, facts: [f2], forbidden: ['Tags:', 'Category:'], escalate: false },
      ],
    });
  }
  return conversations;
}

export function allConversations(): Conversation[] {
  return [...ticketing(), ...education(), ...shop()];
}
