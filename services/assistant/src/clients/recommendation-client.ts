import { callUnary, createClient, protos, type CallContext } from '@switchyard/shared';
import type { RecommendationServiceClient } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendationService';
import type { RecommendRequest } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendRequest';
import type { RecommendResponse__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendResponse';

/** What the recommend tool needs from the recommendation service (a test double can stand in). */
export interface Recommender {
  recommend(request: RecommendRequest, context: CallContext): Promise<RecommendResponse__Output>;
}

/** gRPC client of the recommendation service's Recommend, with the caller's organization. */
export class RecommendationClient implements Recommender {
  private readonly client: RecommendationServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.recommendation().RecommendationService, address);
  }

  recommend(request: RecommendRequest, context: CallContext): Promise<RecommendResponse__Output> {
    return callUnary(
      'recommendation',
      this.client.Recommend,
      this.client,
      request,
      context,
      this.deadlineMs,
    );
  }

  close(): void {
    this.client.close();
  }
}
