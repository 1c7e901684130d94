import { callUnary, createClient, protos, type CallContext } from '@switchyard/shared';
import type { ContentServiceClient } from '@switchyard/shared/generated/switchyard/content/v1/ContentService';
import type { GenerateChunk__Output } from '@switchyard/shared/generated/switchyard/content/v1/GenerateChunk';
import type { GenerateRequest } from '@switchyard/shared/generated/switchyard/content/v1/GenerateRequest';
import type { GenerateResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/GenerateResponse';
import type { SubmitGenerateRequest } from '@switchyard/shared/generated/switchyard/content/v1/SubmitGenerateRequest';
import type { SubmitGenerateResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/SubmitGenerateResponse';
import type { TransformRequest } from '@switchyard/shared/generated/switchyard/content/v1/TransformRequest';
import type { TransformResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/TransformResponse';
import type { AsyncRequest__Output } from '@switchyard/shared/generated/switchyard/content/v1/AsyncRequest';
import type { ListModelsResponse__Output } from '@switchyard/shared/generated/switchyard/content/v1/ListModelsResponse';

import { openServerStream, type ChunkStream } from './server-stream';

export const CONTENT_SERVICE_NAME = 'switchyard.content.v1.ContentService';

export class ContentClient {
  private readonly client: ContentServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.content().ContentService, address);
  }

  generate(request: GenerateRequest, context: CallContext): Promise<GenerateResponse__Output> {
    return callUnary('content', this.client.Generate, this.client, request, context, this.deadlineMs);
  }

  /** Deltas, then one final chunk with the Generate fields. */
  generateStream(request: GenerateRequest, context: CallContext): ChunkStream<GenerateChunk__Output> {
    return openServerStream('content', this.client.GenerateStream, this.client, request, context, this.deadlineMs);
  }

  submitGenerate(request: SubmitGenerateRequest, context: CallContext): Promise<SubmitGenerateResponse__Output> {
    return callUnary('content', this.client.SubmitGenerate, this.client, request, context, this.deadlineMs);
  }

  transform(request: TransformRequest, context: CallContext): Promise<TransformResponse__Output> {
    return callUnary('content', this.client.Transform, this.client, request, context, this.deadlineMs);
  }

  getRequest(requestId: string, context: CallContext): Promise<AsyncRequest__Output> {
    return callUnary('content', this.client.GetRequest, this.client, { request_id: requestId }, context, this.deadlineMs);
  }

  listModels(context: CallContext): Promise<ListModelsResponse__Output> {
    return callUnary('content', this.client.ListModels, this.client, {}, context, this.deadlineMs);
  }

  close(): void {
    this.client.close();
  }
}
