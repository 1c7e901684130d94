import { type CallContext } from '@switchyard/shared';
import type { GenerateRequest__Output } from '@switchyard/shared/generated/switchyard/content/v1/GenerateRequest';
import type { GenerateResponse } from '@switchyard/shared/generated/switchyard/content/v1/GenerateResponse';
import { ENDPOINTS } from '../events/usage-publisher';
import { fitToTokens } from '../models/fit';
import type { GenerateInput, TextModel } from '../models/text-model';
import type { HandlerDeps } from './deps';
import { callWithUsage } from './model-call';
import { checkInputSize, languageFor, maxLengthFor, requestIdOf, requireText } from './validation';

export interface PreparedGeneration {
  model: TextModel;
  input: GenerateInput;
}

/** Validates a generate request (shared by Generate and SubmitGenerate). */
export function prepareGeneration(request: Partial<GenerateRequest__Output>, deps: HandlerDeps): PreparedGeneration {
  const prompt = requireText(request.prompt, 'prompt');
  const model = deps.models.resolveFor(request.model ?? '', 'generate');
  checkInputSize(prompt, 'prompt', deps.maxInputTokens);
  return {
    model,
    input: {
      prompt,
      maxTokens: maxLengthFor(request.max_length, model),
      tone: (request.tone ?? '').trim(),
      language: languageFor(request.language ?? '', model),
    },
  };
}

/** Runs a prepared generation; the output is held to maxTokens whatever the model returns. */
export async function runGeneration(prepared: PreparedGeneration) {
  const result = await prepared.model.generate(prepared.input);
  return { ...result, text: fitToTokens(result.text, prepared.input.maxTokens) };
}

export function createGenerateHandler(deps: HandlerDeps) {
  return async (request: GenerateRequest__Output, context: CallContext): Promise<GenerateResponse> => {
    const requestId = requestIdOf(context);
    const prepared = prepareGeneration(request, deps);
    const result = await callWithUsage(deps.usage, {
      context,
      requestId,
      endpoint: ENDPOINTS.generate,
      model: prepared.model,
      run: () => runGeneration(prepared),
    });
    return {
      content: result.text,
      usage: { model: prepared.model.info.id, tokens_input: result.tokensInput, tokens_output: result.tokensOutput, cost: result.cost },
      request_id: requestId,
    };
  };
}
