import { callUnary, createClient, protos, type CallContext } from '@switchyard/shared';
import type { AssistantServiceClient } from '@switchyard/shared/generated/switchyard/assistant/v1/AssistantService';
import type { ReplyChunk__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyChunk';
import type { ReplyRequest } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyRequest';
import type { ReplyResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyResponse';

import { openServerStream, type ChunkStream } from './server-stream';

export const ASSISTANT_SERVICE_NAME = 'switchyard.assistant.v1.AssistantService';

export class AssistantClient {
  private readonly client: AssistantServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.assistant().AssistantService, address);
  }

  reply(request: ReplyRequest, context: CallContext): Promise<ReplyResponse__Output> {
    return callUnary('assistant', this.client.Reply, this.client, request, context, this.deadlineMs);
  }

  /** Deltas, then one final chunk with the Reply fields. */
  replyStream(request: ReplyRequest, context: CallContext): ChunkStream<ReplyChunk__Output> {
    return openServerStream('assistant', this.client.ReplyStream, this.client, request, context, this.deadlineMs);
  }

  close(): void {
    this.client.close();
  }
}
