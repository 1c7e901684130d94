import { KNOWN_TONES, type KnownTone } from './phrases';

/** Adjectives (several languages) mapped to the nearest known tone. */
const TONE_SYNONYMS: Record<KnownTone, string[]> = {
  formal: [
    'formal',
    'professional',
    'serious',
    'polished',
    'elegant',
    'sophisticated',
    'authoritative',
    'academic',
    'corporate',
    'businesslike',
    'respectful',
    'refined',
    'informative',
    'neutral',
    'technical',
    'precise',
    'official',
    'courteous',
    'dignified',
    'formel',
    'formelle',
    'professionnel',
    'sérieux',
    'förmlich',
    'seriös',
    'sachlich',
    'profesional',
    'serio',
  ],
  casual: [
    'casual',
    'friendly',
    'relaxed',
    'warm',
    'conversational',
    'informal',
    'approachable',
    'laid-back',
    'easygoing',
    'chatty',
    'simple',
    'honest',
    'down-to-earth',
    'personal',
    'cozy',
    'kind',
    'gentle',
    'empathetic',
    'caring',
    'décontracté',
    'amical',
    'chaleureux',
    'locker',
    'freundlich',
    'herzlich',
    'informell',
    'cercano',
    'amigable',
    'cálido',
    'informal',
  ],
  persuasive: [
    'persuasive',
    'convincing',
    'compelling',
    'bold',
    'confident',
    'urgent',
    'salesy',
    'energetic',
    'inspiring',
    'motivating',
    'enthusiastic',
    'exciting',
    'passionate',
    'punchy',
    'assertive',
    'powerful',
    'ambitious',
    'dynamic',
    'promotional',
    'persuasif',
    'convaincant',
    'überzeugend',
    'persuasivo',
    'convincente',
  ],
  playful: [
    'playful',
    'witty',
    'fun',
    'funny',
    'humorous',
    'quirky',
    'cheeky',
    'whimsical',
    'lighthearted',
    'light-hearted',
    'cheerful',
    'silly',
    'joyful',
    'spirited',
    'sarcastic',
    'ironic',
    'goofy',
    'clever',
    'ludique',
    'drôle',
    'espiègle',
    'verspielt',
    'witzig',
    'lustig',
    'divertido',
    'juguetón',
    'gracioso',
  ],
};

const FILLER = new Set([
  'very',
  'really',
  'slightly',
  'somewhat',
  'a',
  'bit',
  'and',
  'but',
  'yet',
  'tone',
  'style',
  'et',
  'und',
  'y',
  'sehr',
  'très',
  'muy',
]);

const DEFAULT_TONE: KnownTone = 'formal';

export interface ResolvedTone {
  tone: KnownTone;
  /** The caller's own adjectives when the tone was given as a list; woven into the text. */
  adjectives: string[];
}

function toneOf(adjective: string): KnownTone | undefined {
  return KNOWN_TONES.find((tone) => TONE_SYNONYMS[tone].includes(adjective));
}

/**
 * A known tone as is; anything else read as adjectives ("witty, warm"): the tone most of them
 * map to (first mention breaks ties), and the adjectives themselves to weave in.
 */
export function resolveTone(raw: string): ResolvedTone {
  const adjectives = raw
    .toLowerCase()
    .split(/[,;/&+|]|\s+/)
    .map((word) => word.trim().replace(/[^\p{L}-]/gu, ''))
    .filter((word) => word !== '' && !FILLER.has(word));
  if (adjectives.length === 0) return { tone: DEFAULT_TONE, adjectives: [] };
  if (adjectives.length === 1 && (KNOWN_TONES as readonly string[]).includes(adjectives[0]!)) {
    return { tone: adjectives[0] as KnownTone, adjectives: [] };
  }
  const votes = new Map<KnownTone, number>();
  for (const adjective of adjectives) {
    const tone = toneOf(adjective);
    if (tone) votes.set(tone, (votes.get(tone) ?? 0) + 1);
  }
  let best: KnownTone = DEFAULT_TONE;
  let bestVotes = 0;
  for (const [tone, count] of votes) {
    if (count > bestVotes) [best, bestVotes] = [tone, count];
  }
  return { tone: best, adjectives: [...new Set(adjectives)] };
}
