import { normalize } from '../language/normalize';

/** Where a stated topic ends: sentence punctuation or the start of a purpose/audience clause. */
const TOPIC_END =
  /[.!?;:\n]|,\s|\s(to help|so that|aimed at|targeting|with|where|which|that|because)\s/i;

/** Patterns that state the topic as such: a later message with one changes the topic. */
const STATED_TOPIC = [
  /\btopic\s*(?:is|:|=|will be|would be)\s*(.+)/i,
  /\b(?:it'?s|it is|course is|it will be|it'll be)\s+(?:about|on|called)\s+(.+)/i,
  /\b(?:my|our|the)\s+(?:course|class|workshop|training)\s+(?:is|will be|would be)\s+(?:on|about)?\s*(.+)/i,
  /\b(?:thema|tema|sujet)\s*(?:ist|es|est|:)\s*(.+)/i,
];

/** Patterns that name a topic in passing ("a course on X", "I'd like to teach X"): a first message's. */
const NAMED_TOPIC = [
  /\b(?:course|class|workshop|bootcamp|programme|program|training|module|series|curso|kurs|cours)\s+(?:on|about|in|covering|called|named|titled|sobre|de|uber|über|sur)\s+(.+)/i,
  /\bteach(?:ing)?\s+(?:people\s+|students\s+|learners\s+|beginners\s+)?(?:about\s+|how to\s+)?(.+)/i,
  /\b(?:i'?d like to|i want to|i would like to|i'm going to|we want to|we'd like to|let'?s)\s+(?:create|build|make|write|run|offer|do|launch|start)\s+(?:an?\s+)?(?:new\s+)?(?:online\s+)?(?:course|class|workshop|training)?\s*(?:on|about|for|in|covering)?\s*(.+)/i,
  /\b(?:quiero|me gustaria)\s+(?:crear|hacer)\s+un\s+curso\s+(?:sobre|de)\s+(.+)/i,
];

/**
 * Words that say what kind of course it is, not what it is about ("a beginner workshop series",
 * "ein Online-Kurs"): a clause made of these alone is no topic.
 */
const FORMAT_WORDS = new Set(
  (
    'a an the my our new online offline live short long weekly monthly daily evening weekend ' +
    'free paid small little hands on practical intensive beginner beginners intro introductory ' +
    'intermediate advanced basic basics course courses class classes workshop workshops series ' +
    'training trainings program programme programs bootcamp seminar seminars lesson lessons ' +
    'module modules tutorial tutorials day half full part one two three four five six week weeks ' +
    'session sessions kurs kurse kursreihe reihe workshopreihe curso cursos taller talleres serie ' +
    'cours formation atelier ateliers ein eine einen un una une de des'
  ).split(' '),
);

const isFormatOnly = (clause: string) => {
  const words = normalize(clause).trim().split(' ').filter(Boolean);
  return words.length > 0 && words.every((w) => FORMAT_WORDS.has(w));
};

const AUDIENCE =
  /\b(?:for|to|aimed at|targeting|para|fur|für|pour)\s+((?:absolute\s+|complete\s+|total\s+)?(?:beginners|intermediate|advanced|[a-zà-ÿ -]{0,30}?(?:students|learners|developers|engineers|professionals|managers|teachers|owners|staff|employees|kids|children|teens|teenagers|adults|seniors|retirees|pensioners|families|parents|newcomers|hobbyists|volunteers|freelancers|researchers|travell?ers|analysts|designers|nurses|principiantes|estudiantes|anfänger|anfanger|débutants|debutants)))\b/i;

/** Words that say "I want a course" without saying on what. */
const FILLER =
  /^(hi|hello|hey|so|ok|okay|well|please|i want|i'd like|i would like|i want to create|i'd like to create|create|make|build|a|an|the|new|online|course|class|workshop|on|about|for|my|our|topic|it's|it is|is)\b/i;

function clean(raw: string): string | undefined {
  // "a beginner workshop series: Winter bike maintenance": the topic is after the colon.
  const [head, ...tail] = raw.split(/:\s+/);
  const named = head !== undefined && isFormatOnly(head) && tail.length > 0 ? tail.join(': ') : raw;
  const clause = named.split(TOPIC_END)[0] ?? '';
  const audience = AUDIENCE.exec(clause);
  const topic = (audience ? clause.slice(0, audience.index) : clause)
    .replace(/^(an?|the|my|our|a course on|a course about)\s+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  return topic.length >= 2 && topic.split(' ').length <= 10 && !isFormatOnly(topic)
    ? topic
    : undefined;
}

function matchTopic(text: string, patterns: RegExp[]): string | undefined {
  for (const pattern of patterns) {
    const raw = pattern.exec(text)?.[1];
    const topic = raw ? clean(raw) : undefined;
    if (topic) return topic;
  }
  return undefined;
}

/** A topic stated as such ("the topic is X", "it's about X"): it replaces the one before. */
export function statedTopic(text: string): string | undefined {
  return matchTopic(text, STATED_TOPIC);
}

/** The course topic a user names ("a course on Python for data analysis" -> "Python"), if a pattern says so. */
export function extractTopic(text: string): string | undefined {
  return matchTopic(text, [...STATED_TOPIC, ...NAMED_TOPIC]);
}

/**
 * The topic of a first message however it is phrased: a stated one ("a course on X", "I'd like
 * to teach X"), else the message itself without greetings and filler words ("Watercolour
 * painting for retirees" -> "Watercolour painting").
 */
export function topicOf(text: string): string | undefined {
  const stated = extractTopic(text);
  if (stated) return stated;
  let rest = text.replace(/[!?]+$/g, '').trim();
  for (let i = 0; i < 12; i++) {
    const next = rest.replace(FILLER, '').replace(/^[\s,.:;-]+/, '');
    if (next === rest) break;
    rest = next;
  }
  const topic = clean(rest);
  return topic && normalize(topic).trim().split(' ').length <= 8 ? topic : undefined;
}

/** Who the course is for ("for beginners", "aimed at small business owners"), if stated. */
export function extractAudience(text: string): string | undefined {
  return AUDIENCE.exec(text)?.[1]?.trim();
}
