import type { ChatMessage, TranslateInput } from '../models/text-model';
import { languageName } from './language-name';

export function translatePrompt(input: TranslateInput): ChatMessage[] {
  const source = input.sourceLanguage ? `from ${languageName(input.sourceLanguage)} ` : '';
  return [
    {
      role: 'system',
      content:
        `Translate the user's text ${source}into ${languageName(input.targetLanguage)}. ` +
        'Keep formatting, names, numbers and line breaks. Answer with the translation only.',
    },
    { role: 'user', content: input.text },
  ];
}
