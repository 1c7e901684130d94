import type { ChatMessage, GenerateInput } from '../models/text-model';
import { languageName } from './language-name';

/** Roughly 0.75 English words per token; the upstream max_tokens is the hard cap. */
function lengthHint(maxTokens: number): string {
  const words = Math.max(1, Math.floor(maxTokens * 0.75));
  return `Keep it under ${words} words (${maxTokens} tokens) and end with a complete sentence.`;
}

export function generatePrompt(input: GenerateInput): ChatMessage[] {
  const rules = [
    'You write marketing and product copy. Answer with the requested text only: no preamble, no notes about the task.',
    input.tone ? `Tone: ${input.tone}.` : 'Tone: neutral and clear.',
    input.language
      ? `Write in ${languageName(input.language)}.`
      : 'Write in the language of the request.',
    lengthHint(input.maxTokens),
  ];
  return [
    { role: 'system', content: rules.join('\n') },
    { role: 'user', content: input.prompt },
  ];
}
