import {
  AppError,
  countTokens,
  type CallContext,
  type UsageRoute,
  UsageRoutes,
} from '@switchyard/shared';
import type { EmbedRequest__Output, EmbedResponse } from '@switchyard/shared/proto/content/v1';
import { checkAllowed } from '../models/allowed';
import { modelNotFound } from '../models/registry';
import { routeWithFallback } from '../models/routing';
import type { CallOptions, EmbedResult, TextModel } from '../models/text-model';
import type { ModelDeps } from './deps';
import { callWithUsage, usageMessage } from './model-call';
import { requestIdOf } from './validation';

/**
 * Inputs per call: the answer must stay within gRPC's 4 MB message limit (512 vectors of 1,536
 * floats are about 3 MB). The assistant sends its chunks in batches below this.
 */
export const MAX_EMBED_INPUTS = 512;

/** Each input must fit the model's window (public calls: retrieval's chunks may be truncated); the batch within the limit. */
function checkInputs(inputs: string[], model: TextModel, publicCall: boolean): void {
  if (inputs.length === 0)
    throw AppError.invalid('inputs must not be empty', '/inputs', 'required');
  if (inputs.length > MAX_EMBED_INPUTS)
    throw new AppError('payload_too_large', `at most ${MAX_EMBED_INPUTS} inputs per call`, [
      { field: '/inputs', reason: `over ${MAX_EMBED_INPUTS}` },
    ]);
  if (!publicCall) return;
  const index = inputs.findIndex((text) => countTokens(text) > model.info.contextWindow);
  if (index >= 0) {
    throw new AppError(
      'payload_too_large',
      `input ${index} is longer than the ${model.info.contextWindow} tokens model ${model.info.id} takes`,
      [{ field: `/inputs/${index}`, reason: `over ${model.info.contextWindow} tokens` }],
    );
  }
}

function embedWith(
  model: TextModel,
  inputs: string[],
  options: CallOptions | undefined,
  truncate: boolean,
): Promise<EmbedResult> {
  if (!model.embed)
    throw AppError.unsupported(`model ${model.info.id} cannot embed`, [
      { field: '/model', reason: 'lacks the embeddings capability' },
    ]);
  return model.embed(inputs, options, { truncate });
}

function internalRoute(route: string): UsageRoute {
  return route === UsageRoutes.cacheEmbeddings ? route : UsageRoutes.knowledgeEmbeddings;
}

/** Embed: vectors from the registry's embeddings model; the tokens are recorded as the caller organization's usage. */
export async function embed(
  deps: ModelDeps,
  request: EmbedRequest__Output,
  context: CallContext,
  options?: CallOptions,
): Promise<EmbedResponse> {
  // A gateway of the version before usage routes names the path.
  const publicCall =
    request.route === UsageRoutes.openAiEmbeddings || request.route === '/v1/embeddings';
  if (publicCall && !deps.models.find(request.model))
    throw modelNotFound(request.model, deps.models.able('embeddings'));
  const model = deps.models.resolveEmbedder(request.model);
  // Knowledge retrieval's vectors are the platform's choice, not a model the caller names.
  if (publicCall) checkAllowed(deps.models, model, context.models);
  checkInputs(request.inputs, model, publicCall);
  // The gateway's /v1/embeddings and its semantic cache bill their own routes; everything else is
  // knowledge retrieval.
  const result = await callWithUsage(deps.usage, {
    context,
    requestId: requestIdOf(context),
    route: publicCall ? UsageRoutes.openAiEmbeddings : internalRoute(request.route),
    inBackground: publicCall,
    model,
    run: () =>
      routeWithFallback('embeddings', deps.models.chainFor(model, 'embeddings'), (candidate) =>
        embedWith(candidate, request.inputs, options, !publicCall),
      ),
  });
  return {
    embeddings: result.vectors.map((values) => ({ values })),
    usage: usageMessage(result),
  };
}
