import { callUnary, createClient, protos, type CallContext } from '@switchyard/shared';
import type { RecommendationServiceClient } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendationService';
import type { RecommendRequest } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendRequest';
import type { RecommendResponse__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendResponse';
import type { Item, Item__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/Item';
import type { Interaction } from '@switchyard/shared/generated/switchyard/recommendation/v1/Interaction';
import type { UpsertItemsResponse__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/UpsertItemsResponse';
import type { RecordInteractionsResponse__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecordInteractionsResponse';
import type { ModelInfo__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/ModelInfo';
import type { DeleteItemResponse__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/DeleteItemResponse';

const REBUILD_DEADLINE_MS = 120_000;

export const RECOMMENDATION_SERVICE_NAME = 'switchyard.recommendation.v1.RecommendationService';

export class RecommendationClient {
  private readonly client: RecommendationServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.recommendation().RecommendationService, address);
  }

  recommend(request: RecommendRequest, context: CallContext): Promise<RecommendResponse__Output> {
    return callUnary('recommendation', this.client.Recommend, this.client, request, context, this.deadlineMs);
  }

  async upsertItems(items: Item[], context: CallContext): Promise<number> {
    const response: UpsertItemsResponse__Output = await callUnary('recommendation', this.client.UpsertItems, this.client, { items }, context, this.deadlineMs);
    return response.upserted;
  }

  async recordInteractions(interactions: Interaction[], context: CallContext): Promise<number> {
    const response: RecordInteractionsResponse__Output = await callUnary(
      'recommendation',
      this.client.RecordInteractions,
      this.client,
      { interactions },
      context,
      this.deadlineMs,
    );
    return response.recorded;
  }

  getItem(itemId: string, context: CallContext): Promise<Item__Output> {
    return callUnary('recommendation', this.client.GetItem, this.client, { item_id: itemId }, context, this.deadlineMs);
  }

  async deleteItem(itemId: string, context: CallContext): Promise<boolean> {
    const response: DeleteItemResponse__Output = await callUnary('recommendation', this.client.DeleteItem, this.client, { item_id: itemId }, context, this.deadlineMs);
    return response.deleted;
  }

  /** Training takes seconds on a real catalog: its own deadline, not the serving one. */
  rebuildModel(context: CallContext): Promise<ModelInfo__Output> {
    return callUnary('recommendation', this.client.RebuildModel, this.client, {}, context, Math.max(this.deadlineMs, REBUILD_DEADLINE_MS));
  }

  close(): void {
    this.client.close();
  }
}
