import { fitToTokens } from './fit';
import type { ModelRegistry } from './registry';
import { routeWithFallback, type Routed } from './routing';
import type { CallOptions, GenerateInput, TextModel, TextResult } from './text-model';

/** A validated generate request: the requested model and its input. */
export interface PreparedGeneration {
  model: TextModel;
  input: GenerateInput;
}

/** The requested model and the fallbacks that can write the requested language. */
export function generationChain(prepared: PreparedGeneration, models: ModelRegistry): TextModel[] {
  const language = prepared.input.language;
  return models
    .chainFor(prepared.model, 'generate')
    .filter(
      (model) =>
        model === prepared.model ||
        !language ||
        !model.info.languages ||
        model.info.languages.includes(language),
    );
}

/** The input for one model of the chain: a fallback with a smaller output limit gets its own cap. */
export function inputFor(model: TextModel, input: GenerateInput): GenerateInput {
  return { ...input, maxTokens: Math.min(input.maxTokens, model.info.maxOutputTokens) };
}

/** Runs a prepared generation over the chain; the output is held to maxTokens whatever the model returns. */
export async function runGeneration(
  prepared: PreparedGeneration,
  models: ModelRegistry,
  options?: CallOptions,
): Promise<Routed<TextResult>> {
  return routeWithFallback('generate', generationChain(prepared, models), async (model) => {
    const input = inputFor(model, prepared.input);
    const result = await model.generate(input, options);
    return { ...result, text: fitToTokens(result.text, input.maxTokens, result.tokensOutput) };
  });
}
