import { normalize } from '../language/normalize';

/** Where a stated topic ends: sentence punctuation or the start of a purpose/audience clause. */
const TOPIC_END =
  /[.!?;:\n]|,\s|\s(to help|so that|aimed at|targeting|with|where|which|that|because)\s/i;

const TOPIC_PATTERNS = [
  /\btopic\s*(?:is|:|=|will be|would be)\s*(.+)/i,
  /\b(?:course|class|workshop|bootcamp|programme|program|training|module|curso|kurs|cours)\s+(?:on|about|in|covering|called|named|titled|sobre|de|uber|über|sur)\s+(.+)/i,
  /\bteach(?:ing)?\s+(?:people\s+|students\s+|learners\s+|beginners\s+)?(?:about\s+|how to\s+)?(.+)/i,
  /\b(?:it'?s|it is|course is|it will be|it'll be)\s+(?:about|on|called)\s+(.+)/i,
  /\b(?:i'?d like to|i want to|i would like to|i'm going to|we want to|let'?s)\s+(?:create|build|make|write|run|offer|do|launch)\s+(?:an?\s+)?(?:new\s+)?(?:online\s+)?(?:course|class|workshop|training)?\s*(?:on|about|for|in|covering)?\s*(.+)/i,
  /\b(?:my|our|the)\s+(?:course|class|workshop|training)\s+(?:is|will be|would be)\s+(?:on|about)?\s*(.+)/i,
  /\b(?:quiero|me gustaria)\s+(?:crear|hacer)\s+un\s+curso\s+(?:sobre|de)\s+(.+)/i,
];

const AUDIENCE =
  /\b(?:for|to|aimed at|targeting|para|fur|für|pour)\s+((?:absolute\s+|complete\s+|total\s+)?(?:beginners|intermediate|advanced|[a-zà-ÿ -]{0,30}?(?:students|learners|developers|engineers|professionals|managers|teachers|owners|staff|employees|kids|children|teens|teenagers|adults|seniors|retirees|pensioners|families|parents|newcomers|hobbyists|volunteers|freelancers|researchers|travell?ers|analysts|designers|nurses|principiantes|estudiantes|anfänger|anfanger|débutants|debutants)))\b/i;

/** Words that say "I want a course" without saying on what. */
const FILLER =
  /^(hi|hello|hey|so|ok|okay|well|please|i want|i'd like|i would like|i want to create|i'd like to create|create|make|build|a|an|the|new|online|course|class|workshop|on|about|for|my|our|topic|it's|it is|is)\b/i;

function clean(raw: string): string | undefined {
  const clause = raw.split(TOPIC_END)[0] ?? '';
  const audience = AUDIENCE.exec(clause);
  const topic = (audience ? clause.slice(0, audience.index) : clause)
    .replace(/^(an?|the|my|our|a course on|a course about)\s+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  return topic.length >= 2 && topic.split(' ').length <= 10 ? topic : undefined;
}

/** The course topic a user names ("a course on Python for data analysis" -> "Python"), if a pattern says so. */
export function extractTopic(text: string): string | undefined {
  for (const pattern of TOPIC_PATTERNS) {
    const raw = pattern.exec(text)?.[1];
    const topic = raw ? clean(raw) : undefined;
    if (topic) return topic;
  }
  return undefined;
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
