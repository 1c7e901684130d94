/**
 * A test double of the content service's completion RPCs: a real gRPC server (shared
 * startGrpcServer) implementing Complete, CompleteStream and Embed (unsupported) with a small model table, recording
 * every request with its call context.
 */
import type { ServerWritableStream } from '@grpc/grpc-js';
import {
  AppError,
  contextFromMetadata,
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  toServiceError,
  unary,
  type CallContext,
  type RunningGrpcServer,
} from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import type {
  CompleteRequest__Output,
  CompleteResponse,
} from '@switchyard/shared/proto/content/v1';

/** Usage the fake reports per model: deliberately unlike what a tokenizer would count. */
export const FAKE_MODELS: Record<
  string,
  { tokens_input: number; tokens_output: number; cost: number }
> = {
  'fake-gpt': { tokens_input: 1200, tokens_output: 345, cost: 0.00189 },
  'fake-other': { tokens_input: 77, tokens_output: 11, cost: 0.0001 },
};

export interface RecordedCompletion {
  method: 'Complete' | 'CompleteStream';
  request: CompleteRequest__Output;
  context: CallContext;
}

/** What the next call does instead of answering. */
export type Behaviour =
  | { kind: 'fail'; error: AppError }
  /** Streams: sends `deltas` deltas, then fails with error. */
  | { kind: 'break'; deltas: number; error: AppError }
  /** Streams: sends one delta, then waits until the caller cancels. */
  | { kind: 'hang' };

export class FakeContentService {
  readonly calls: RecordedCompletion[] = [];
  readonly cancelled: string[] = [];
  private next?: Behaviour;
  private server?: RunningGrpcServer;

  get address(): string {
    if (!this.server) throw new Error('fake content service is not running');
    return `127.0.0.1:${this.server.port}`;
  }

  static replyFor(request: CompleteRequest__Output): string {
    const last = request.messages[request.messages.length - 1]?.content ?? '';
    // A finished sentence: the usage reported is past the reply cap, so a cut reply would be overruled.
    return `Reply from ${request.model} to: "${last}".`;
  }

  async start(): Promise<void> {
    const logger = silentLogger();
    this.server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          name: SERVICE_NAMES.ContentService,
          definition: protos.content().ContentService.service,
          implementation: {
            Complete: unary(logger, (request: CompleteRequest__Output, context: CallContext) =>
              this.complete(request, context),
            ),
            CompleteStream: (call: ServerWritableStream<CompleteRequest__Output, unknown>) =>
              void this.completeStream(call),
            // As content answers while its registry has no embeddings model: retrieval is BM25.
            Embed: unary(logger, async () => {
              throw new AppError('unsupported', 'no model with the embeddings capability');
            }),
          },
        },
      ],
    });
  }

  /** The next call behaves so (once). */
  behave(behaviour: Behaviour): void {
    this.next = behaviour;
  }

  reset(): void {
    this.calls.length = 0;
    this.cancelled.length = 0;
    this.next = undefined;
  }

  async stop(): Promise<void> {
    await this.server?.stop(50);
    this.server = undefined;
  }

  private take(): Behaviour | undefined {
    const behaviour = this.next;
    this.next = undefined;
    return behaviour;
  }

  /** Like the content service: the registry decides which names exist; messages must not be empty. */
  private answer(request: CompleteRequest__Output): CompleteResponse {
    const usage = FAKE_MODELS[request.model];
    if (!usage)
      throw AppError.invalid(
        `unknown model "${request.model}"; known models: ${Object.keys(FAKE_MODELS).join(', ')}`,
        '/model',
        'unknown model',
      );
    if (request.messages.length === 0)
      throw AppError.invalid('messages must not be empty', '/messages', 'required');
    return {
      text: FakeContentService.replyFor(request),
      usage: { model: request.model, ...usage },
    };
  }

  private async complete(
    request: CompleteRequest__Output,
    context: CallContext,
  ): Promise<CompleteResponse> {
    this.calls.push({ method: 'Complete', request, context });
    const behaviour = this.take();
    if (behaviour?.kind === 'fail') throw behaviour.error;
    return this.answer(request);
  }

  private async completeStream(
    call: ServerWritableStream<CompleteRequest__Output, unknown>,
  ): Promise<void> {
    this.calls.push({
      method: 'CompleteStream',
      request: call.request,
      context: contextFromMetadata(call.metadata),
    });
    const cancelled = new Promise<void>((resolve) => call.on('cancelled', resolve)).then(
      () => void this.cancelled.push('CompleteStream'),
    );
    try {
      const behaviour = this.take();
      if (behaviour?.kind === 'fail') throw behaviour.error;
      if (behaviour?.kind === 'hang') {
        call.write({ delta: 'Thinking ' });
        await Promise.race([cancelled, new Promise((resolve) => setTimeout(resolve, 4000))]);
        return;
      }
      const response = this.answer(call.request);
      const words = (response.text ?? '').match(/\S+\s*/g) ?? [];
      const limit = behaviour?.kind === 'break' ? behaviour.deltas : words.length;
      for (const delta of words.slice(0, limit)) call.write({ delta });
      if (behaviour?.kind === 'break') throw behaviour.error;
      call.write({ final: response });
      call.end();
    } catch (error) {
      call.emit(
        'error',
        toServiceError(
          error instanceof AppError ? error : new AppError('internal', 'internal error'),
        ),
      );
    }
  }
}
