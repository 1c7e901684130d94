import { UsageRoutes, type CallContext } from '@switchyard/shared';
import type { GenerateChunk, GenerateRequest__Output } from '@switchyard/shared/proto/content/v1';
import { fitToTokens } from '../models/fit';
import { generationChain, inputFor } from '../models/generation';
import { routeWithFallback, streamResult } from '../models/routing';
import type {
  CallOptions,
  DeltaSink,
  GenerateInput,
  TextModel,
  TextResult,
} from '../models/text-model';
import type { StreamSink } from '@switchyard/shared';
import type { ModelDeps } from './deps';
import { prepareGeneration } from './generate';
import { callWithUsage, usageMessage } from './model-call';
import { requestIdOf } from './validation';

/** Native streaming where the model has it; otherwise the finished text in word-sized deltas. */
async function streamGeneration(
  model: TextModel,
  input: GenerateInput,
  onDelta: DeltaSink,
  options?: CallOptions,
): Promise<TextResult> {
  if (model.generateStream) return model.generateStream(input, onDelta, options);
  const result = await model.generate(input, options);
  return streamResult({ ...result, text: fitToTokens(result.text, input.maxTokens) }, onDelta);
}

/**
 * GenerateStream: deltas, then one final chunk with the Generate fields. Until the first delta
 * has gone out a failing model is replaced by its fallbacks; after that the stream ends with the
 * error. The usage (of the answer, or of what was produced before a failure) is recorded without
 * holding up the last chunk, as on the /v1 path.
 */
export async function generateStream(
  deps: ModelDeps,
  request: GenerateRequest__Output,
  context: CallContext,
  sink: StreamSink<GenerateChunk>,
): Promise<void> {
  const requestId = requestIdOf(context);
  const prepared = await prepareGeneration(request, deps, context);
  let sent = 0;
  const onDelta = async (delta: string) => {
    sent++;
    await sink.write({ delta });
  };
  const result = await callWithUsage(deps.usage, {
    context,
    requestId,
    route: UsageRoutes.contentGenerate,
    model: prepared.model,
    inBackground: true,
    run: () =>
      routeWithFallback(
        'generate',
        generationChain(prepared, deps.models),
        (model) => streamGeneration(model, inputFor(model, prepared.input), onDelta, sink.control),
        () => sent === 0,
      ),
  });
  await sink.write({
    final: { content: result.text, usage: usageMessage(result), request_id: requestId },
  });
}
