import type { CallContext } from '@switchyard/shared';
import type { GenerateRequest__Output } from '@switchyard/shared/generated/switchyard/content/v1/GenerateRequest';
import type { GenerateResponse } from '@switchyard/shared/generated/switchyard/content/v1/GenerateResponse';
import { ENDPOINTS } from '../events/usage-publisher';
import { fitToTokens } from '../models/fit';
import type { ModelRegistry } from '../models/registry';
import { routeWithFallback, type Routed } from '../models/routing';
import type { CallOptions, GenerateInput, TextModel, TextResult } from '../models/text-model';
import type { HandlerDeps } from './deps';
import { billableOnce, callWithUsage, usageMessage } from './model-call';
import {
  checkContextWindow,
  checkInputSize,
  languageFor,
  maxLengthFor,
  requestIdOf,
  requireText,
} from './validation';

export interface PreparedGeneration {
  model: TextModel;
  input: GenerateInput;
}

/** Validates a generate request (shared by Generate, GenerateStream and SubmitGenerate). */
export async function prepareGeneration(
  request: Partial<GenerateRequest__Output>,
  deps: HandlerDeps,
): Promise<PreparedGeneration> {
  const prompt = requireText(request.prompt, 'prompt');
  const model = deps.models.resolveFor(request.model ?? '', 'generate');
  const maxTokens = maxLengthFor(request.max_length, model);
  const promptTokens = await checkInputSize(prompt, 'prompt', deps.maxInputTokens);
  checkContextWindow(promptTokens, maxTokens, 'prompt', model);
  return {
    model,
    input: {
      prompt,
      maxTokens,
      tone: (request.tone ?? '').trim(),
      language: languageFor(request.language ?? '', model),
    },
  };
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

export function createGenerateHandler(deps: HandlerDeps) {
  return (
    request: GenerateRequest__Output,
    context: CallContext,
    options?: CallOptions,
  ): Promise<GenerateResponse> =>
    billableOnce(deps, context, 'Generate', async (once) => {
      const requestId = requestIdOf(context);
      const prepared = await prepareGeneration(request, deps);
      const result = await callWithUsage(deps.usage, {
        context,
        requestId,
        endpoint: ENDPOINTS.generate,
        model: prepared.model,
        run: () => runGeneration(prepared, deps.models, options),
        usageEventId: once.usageEventId,
      });
      return { content: result.text, usage: usageMessage(result), request_id: requestId };
    });
}
