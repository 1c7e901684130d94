import type { ChatMessage, ReformatInput, TextFormat } from '../models/text-model';

const FORMAT_RULES: Record<TextFormat, string> = {
  paragraph: 'flowing prose paragraphs',
  bullet_list: 'a bullet list, one item per line starting with "- "',
  numbered_list: 'a numbered list, one item per line starting with "1. ", "2. ", ...',
  markdown: 'Markdown',
  json: 'valid JSON (an array of objects for tabular data)',
  csv: 'CSV with a header row, comma separated, quoting fields where needed',
  html: 'an HTML fragment (no <html> or <body> wrapper)',
  plain: 'plain text without any markup',
};

/** originalFormat comes from the builtin detector, so the model is told what it is reading. */
export function reformatPrompt(input: ReformatInput, originalFormat: TextFormat): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        `Convert the user's text from ${originalFormat} to ${FORMAT_RULES[input.format]}. ` +
        'Keep all content and its order; change only the format. ' +
        'Answer with ONLY the converted text: no explanations and no code fences.',
    },
    { role: 'user', content: input.text },
  ];
}
