/** Where a stated topic ends: sentence punctuation or the start of a purpose/audience clause. */
const TOPIC_END = /[.!?;:\n]|,\s|\s(to help|so that|aimed at|targeting|with|where|which|that)\s/i;

const TOPIC_PATTERNS = [
  /\btopic\s*(?:is|:|=|will be)\s*(.+)/i,
  /\b(?:course|class|workshop|bootcamp|programme|program|training|module)\s+(?:on|about|in|covering|called|named)\s+(.+)/i,
  /\bteach(?:ing)?\s+(?:people\s+|students\s+|learners\s+|beginners\s+)?(?:about\s+)?(.+)/i,
  /\b(?:it'?s|it is|course is)\s+about\s+(.+)/i,
];

const AUDIENCE =
  /\b(?:for|aimed at|targeting)\s+((?:absolute\s+|complete\s+)?(?:beginners|intermediate|advanced|[a-z -]{0,30}?(?:students|learners|developers|engineers|professionals|managers|teachers|owners|staff|employees|kids|children|adults|travell?ers)))\b/i;

/** The course topic a user names ("a course on Python for data analysis" -> "Python"), if any. */
export function extractTopic(text: string): string | undefined {
  for (const pattern of TOPIC_PATTERNS) {
    const raw = pattern.exec(text)?.[1];
    if (!raw) continue;
    const clause = raw.split(TOPIC_END)[0] ?? '';
    // "Python for data analysis for beginners": the audience is not part of the topic.
    const audience = AUDIENCE.exec(clause);
    const topic = (audience ? clause.slice(0, audience.index) : clause)
      .replace(/^(an?|the|my|our)\s+/i, '')
      .trim();
    if (topic && topic.length >= 2 && topic.split(/\s+/).length <= 8) return topic;
  }
  return undefined;
}

/** Who the course is for ("for beginners", "aimed at small business owners"), if stated. */
export function extractAudience(text: string): string | undefined {
  return AUDIENCE.exec(text)?.[1]?.trim();
}
