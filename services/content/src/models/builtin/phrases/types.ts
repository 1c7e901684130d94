export const KNOWN_TONES = ['formal', 'casual', 'persuasive', 'playful'] as const;
export type KnownTone = (typeof KNOWN_TONES)[number];

/**
 * Sentence templates per tone. Placeholders: {subject}, {title}, {keyword}, {keywords}, {adj}.
 * Adjectives are written in a form that fits the templates' predicative slots.
 */
export interface ToneBank {
  taglines: string[];
  openings: string[];
  closings: string[];
  adjectives: string[];
}

export interface LanguageBank {
  tones: Record<KnownTone, ToneBank>;
  /** Sentences about one keyword of the prompt. */
  keywordSentences: string[];
  /** Sentences about the subject as a whole. */
  detailSentences: string[];
  /** Joins the last two items of a list ("a, b and c"). */
  and: string;
}
