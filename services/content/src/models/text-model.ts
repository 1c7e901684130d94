/** The operations a model can serve; ListModels reports them as `capabilities`. */
export type Capability = 'generate' | 'summarize' | 'reformat' | 'translate';

export const TEXT_FORMATS = ['paragraph', 'bullet_list', 'numbered_list', 'markdown', 'json', 'csv', 'html', 'plain'] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

export const SUMMARY_LENGTHS = ['short', 'medium', 'long'] as const;
export type SummaryLength = (typeof SUMMARY_LENGTHS)[number];

export interface ModelInfo {
  id: string;
  provider: string;
  capabilities: Capability[];
  aliases: string[];
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  contextWindow: number;
  maxOutputTokens: number;
  /** Output languages the model can write; undefined means any. */
  languages?: string[];
}

/** Text produced by a model with the tokens it consumed and produced. */
export interface TextResult {
  text: string;
  tokensInput: number;
  tokensOutput: number;
}

export interface GenerateInput {
  prompt: string;
  /** Hard cap on output tokens. */
  maxTokens: number;
  /** Empty means the model's default style. */
  tone: string;
  /** Normalized language code (e.g. "en"). */
  language: string;
}

export interface SummarizeInput {
  text: string;
  targetLength: SummaryLength;
}

export interface ReformatInput {
  text: string;
  format: TextFormat;
}

export interface ReformatResult extends TextResult {
  originalFormat: TextFormat;
}

export interface TranslateInput {
  text: string;
  /** Empty when the caller did not say; a model may detect it. */
  sourceLanguage: string;
  targetLanguage: string;
}

/**
 * A text model behind the content operations (builtin engine, later OpenAI-compatible providers).
 * Methods throw AppError: invalid_request/unsupported for inputs the model cannot serve,
 * upstream_error/timeout when a provider fails.
 */
export interface TextModel {
  readonly info: ModelInfo;
  generate(input: GenerateInput): Promise<TextResult>;
  summarize(input: SummarizeInput): Promise<TextResult>;
  reformat(input: ReformatInput): Promise<ReformatResult>;
  translate(input: TranslateInput): Promise<TextResult>;
}

/** Cost in the price list's currency for the given token counts. */
export function costOf(info: ModelInfo, tokensInput: number, tokensOutput: number): number {
  return (tokensInput * info.inputPricePerMillion + tokensOutput * info.outputPricePerMillion) / 1_000_000;
}
