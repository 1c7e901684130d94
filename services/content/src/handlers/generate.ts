import { UsageRoutes, type CallContext } from '@switchyard/shared';
import type {
  GenerateRequest__Output,
  GenerateResponse,
} from '@switchyard/shared/proto/content/v1';
import { checkAllowed } from '../models/allowed';
import { runGeneration, type PreparedGeneration } from '../models/generation';
import type { CallOptions } from '../models/text-model';
import type { ModelDeps } from './deps';
import { billableOnce, callWithUsage, usageMessage } from './model-call';
import {
  checkContextWindow,
  checkInputSize,
  languageFor,
  maxLengthFor,
  requestIdOf,
  requireText,
} from './validation';

/** Validates a generate request (shared by Generate, GenerateStream and SubmitGenerate). */
export async function prepareGeneration(
  request: Partial<GenerateRequest__Output>,
  deps: ModelDeps,
  context: CallContext,
): Promise<PreparedGeneration> {
  const prompt = requireText(request.prompt, 'prompt');
  const model = deps.models.resolveFor(request.model ?? '', 'generate');
  checkAllowed(deps.models, model, context.models);
  const maxTokens = maxLengthFor(request.max_length, model);
  await checkInputSize(prompt, 'prompt', deps.maxInputTokens);
  checkContextWindow([prompt], maxTokens, 'prompt', model);
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

/** Generate: one text and its usage; a retry with the same call key gets the kept answer. */
export function generate(
  deps: ModelDeps,
  request: GenerateRequest__Output,
  context: CallContext,
  control?: CallOptions,
): Promise<GenerateResponse> {
  return billableOnce(deps, context, 'Generate', async (once) => {
    const requestId = requestIdOf(context);
    const prepared = await prepareGeneration(request, deps, context);
    const result = await callWithUsage(deps.usage, {
      context,
      requestId,
      route: UsageRoutes.contentGenerate,
      model: prepared.model,
      run: () => runGeneration(prepared, deps.models, control),
      usageEventId: once.usageEventId,
    });
    return { content: result.text, usage: usageMessage(result), request_id: requestId };
  });
}
