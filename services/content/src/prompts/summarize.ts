import type { ChatMessage, SummarizeInput, SummaryLength } from '../models/text-model';

const LENGTH_RULES: Record<SummaryLength, string> = {
  short: 'one or two sentences',
  medium: 'one paragraph of three to five sentences',
  long: 'several paragraphs covering every main point',
};

/** Output tokens allowed per target length (further bounded by the model's limits). */
export const SUMMARY_MAX_TOKENS: Record<SummaryLength, number> = {
  short: 128,
  medium: 320,
  long: 800,
};

export function summarizePrompt(input: SummarizeInput): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        `Summarize the user's text in ${LENGTH_RULES[input.targetLength]}. ` +
        'Keep the language of the text, keep facts and figures exact, add nothing that is not in the text. ' +
        'Answer with the summary only.',
    },
    { role: 'user', content: input.text },
  ];
}
