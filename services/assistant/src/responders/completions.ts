import { AppError, type CallContext, type ContentServiceRpc } from '@switchyard/shared';
import type {
  CompleteRequest,
  CompleteResponse__Output,
} from '@switchyard/shared/proto/content/v1';
import type { DeltaSink } from './responder';

/** A finished completion: the text, the model that answered (after fallbacks) and its priced usage. */
export interface Completion {
  text: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
  /** Tools the model asked for (requests that offered tools). */
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
}

/** What the responders need from the content service (a test double can stand in). */
export interface CompletionService {
  complete(request: CompleteRequest, context: CallContext): Promise<Completion>;
  completeStream(
    request: CompleteRequest,
    context: CallContext,
    onDelta: DeltaSink,
    signal?: AbortSignal,
  ): Promise<Completion>;
}

function completionOf(response: CompleteResponse__Output | null | undefined): Completion {
  if (!response?.usage)
    throw new AppError('internal', 'content service answered a completion without usage');
  const { usage } = response;
  return {
    text: response.text,
    model: usage.model,
    tokensInput: usage.tokens_input,
    tokensOutput: usage.tokens_output,
    cost: usage.cost,
    toolCalls: (response.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments_json,
    })),
  };
}

/** Content's Complete and CompleteStream as Completions; failures are the content service's AppErrors. */
export function contentCompletions(
  content: Pick<ContentServiceRpc, 'complete' | 'completeStream'>,
): CompletionService {
  return {
    complete: async (request, context) => completionOf(await content.complete(request, context)),
    /** Deltas go to onDelta as they arrive; resolves with the final chunk. Aborting the signal cancels the call. */
    async completeStream(request, context, onDelta, signal) {
      const stream = content.completeStream(request, context);
      const cancel = () => stream.cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      let final: CompleteResponse__Output | null | undefined;
      try {
        for await (const chunk of stream) {
          if (chunk.kind === 'delta') await onDelta(chunk.delta ?? '');
          else final = chunk.final;
        }
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
      if (stream.cancelled) throw new AppError('unavailable', 'the call was cancelled');
      if (!final)
        throw new AppError(
          'internal',
          'content service ended the completion stream without a result',
        );
      return completionOf(final);
    },
  };
}
