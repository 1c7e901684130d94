import type { ServiceError } from '@grpc/grpc-js';
import {
  AppError,
  callUnary,
  contextToMetadata,
  createClient,
  fromServiceError,
  protos,
  type CallContext,
} from '@switchyard/shared';
import type { CompleteChunk__Output } from '@switchyard/shared/generated/switchyard/content/v1/CompleteChunk';
import type { CompleteRequest } from '@switchyard/shared/generated/switchyard/content/v1/CompleteRequest';
import type { CompleteResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/CompleteResponse';
import type { ContentServiceClient } from '@switchyard/shared/generated/switchyard/content/v1/ContentService';
import type { EmbedRequest } from '@switchyard/shared/generated/switchyard/content/v1/EmbedRequest';
import type { TransformRequest } from '@switchyard/shared/generated/switchyard/content/v1/TransformRequest';
import type { TransformResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/TransformResponse';
import type { EmbedResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/EmbedResponse';

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

/** Receives streamed text as it is produced; a returned promise holds the stream until it settles. */
export type DeltaSink = (delta: string) => void | Promise<void>;

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
  const toolCalls = (response.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.name,
    arguments: c.arguments_json,
  }));
  return {
    text: response.text,
    model: usage.model,
    tokensInput: usage.tokens_input,
    tokensOutput: usage.tokens_output,
    cost: usage.cost,
    toolCalls,
  };
}

function isServiceError(error: unknown): error is ServiceError {
  return typeof error === 'object' && error !== null && 'code' in error && 'metadata' in error;
}

/** gRPC client of content's Complete and CompleteStream; failures are the content service's AppErrors. */
export class ContentCompletionClient implements CompletionService {
  private readonly client: ContentServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.content().ContentService, address);
  }

  /** Content's Transform (the builtin summarizer; content records its usage itself). */
  async transform(
    request: TransformRequest,
    context: CallContext,
  ): Promise<TransformResponse__Output> {
    const response = await callUnary<TransformRequest, TransformResponse__Output>(
      'content',
      this.client.Transform,
      this.client,
      request,
      context,
      this.deadlineMs,
    );
    if (!response)
      throw new AppError('internal', 'content service answered Transform without a body');
    return response;
  }

  /** Content's Embed: vectors from the registry's embeddings model (422 unsupported when it has none). */
  async embed(request: EmbedRequest, context: CallContext): Promise<EmbedResponse__Output> {
    const response = await callUnary<EmbedRequest, EmbedResponse__Output>(
      'content',
      this.client.Embed,
      this.client,
      request,
      context,
      this.deadlineMs,
    );
    if (!response) throw new AppError('internal', 'content service answered Embed without a body');
    return response;
  }

  async complete(request: CompleteRequest, context: CallContext): Promise<Completion> {
    const response = await callUnary<CompleteRequest, CompleteResponse__Output>(
      'content',
      this.client.Complete,
      this.client,
      request,
      context,
      this.deadlineMs,
    );
    return completionOf(response);
  }

  /** Deltas go to onDelta as they arrive; resolves with the final chunk. Aborting the signal cancels the call. */
  async completeStream(
    request: CompleteRequest,
    context: CallContext,
    onDelta: DeltaSink,
    signal?: AbortSignal,
  ): Promise<Completion> {
    const call = this.client.CompleteStream(request, contextToMetadata(context), {
      deadline: Date.now() + this.deadlineMs,
    });
    const cancel = () => call.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    let final: CompleteResponse__Output | null | undefined;
    try {
      for await (const chunk of call as AsyncIterable<CompleteChunk__Output>) {
        if (chunk.kind === 'delta') await onDelta(chunk.delta ?? '');
        else final = chunk.final;
      }
    } catch (error) {
      if (signal?.aborted) throw new AppError('unavailable', 'the call was cancelled');
      throw isServiceError(error) ? fromServiceError(error, 'content') : error;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
    if (!final)
      throw new AppError(
        'internal',
        'content service ended the completion stream without a result',
      );
    return completionOf(final);
  }

  close(): void {
    this.client.close();
  }
}
