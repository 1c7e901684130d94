import { AppError, countTokens } from '@switchyard/shared';
import type {
  GenerateInput,
  ModelInfo,
  ReformatInput,
  ReformatResult,
  SummarizeInput,
  TextModel,
  TextResult,
  TranslateInput,
} from '../text-model';
import { composePiece } from './generate';
import { SUPPORTED_LANGUAGES } from './phrases';
import { reformat } from './reformat';
import { summarize } from './summarize';

export const BUILTIN_MODEL_INFO: ModelInfo = {
  id: 'builtin',
  provider: 'builtin',
  capabilities: ['generate', 'summarize', 'reformat'],
  aliases: ['local'],
  inputPricePerMillion: 0,
  outputPricePerMillion: 0,
  contextWindow: 128_000,
  maxOutputTokens: 4096,
  languages: SUPPORTED_LANGUAGES,
  local: true,
};

function result(input: string, output: string): TextResult {
  return { text: output, tokensInput: countTokens(input), tokensOutput: countTokens(output) };
}

/**
 * The in-process engine: template composition for generate, extractive summaries, format
 * conversion. It has no translation data, so it does not claim the translate capability.
 */
export class BuiltinModel implements TextModel {
  /** The registry may rename the engine (id, aliases); its limits and capabilities stay. */
  constructor(readonly info: ModelInfo = BUILTIN_MODEL_INFO) {}

  async generate(input: GenerateInput): Promise<TextResult> {
    return result(input.prompt, composePiece({ ...input }));
  }

  async summarize(input: SummarizeInput): Promise<TextResult> {
    return result(input.text, summarize(input.text, input.targetLength));
  }

  async reformat(input: ReformatInput): Promise<ReformatResult> {
    const converted = reformat(input.text, input.format);
    return { ...result(input.text, converted.text), originalFormat: converted.originalFormat };
  }

  async translate(input: TranslateInput): Promise<TextResult> {
    throw AppError.unsupported(
      `the builtin model cannot translate ${input.sourceLanguage || 'the text'} -> ${input.targetLanguage}: ` +
        'it has no translation data; a model with the translate capability must be configured',
      [{ field: '/target_language', reason: 'no translation model configured' }],
    );
  }
}
