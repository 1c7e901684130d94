import {
  createRpcClient,
  protos,
  type ContentServiceRpc,
  type RecommendationServiceRpc,
  type RpcClient,
} from '@switchyard/shared';

/** The services the assistant calls: content (models, embeddings, summaries) and recommendation (the recommend tool). */
export interface AssistantClients {
  content: RpcClient<ContentServiceRpc>;
  recommendation: RpcClient<RecommendationServiceRpc>;
}

export interface ClientAddresses {
  contentAddr: string;
  recommendationAddr: string;
  /** Deadline of one call (a whole stream included). */
  deadlineMs: number;
}

export function createClients(addresses: ClientAddresses): AssistantClients {
  return {
    content: createRpcClient(
      protos.content().ContentService,
      addresses.contentAddr,
      addresses.deadlineMs,
    ),
    recommendation: createRpcClient(
      protos.recommendation().RecommendationService,
      addresses.recommendationAddr,
      addresses.deadlineMs,
    ),
  };
}

export function closeClients(clients: AssistantClients): void {
  for (const client of Object.values(clients)) client.close();
}

/** What the recommend tool needs of the recommendation service. */
export type Recommender = Pick<RecommendationServiceRpc, 'recommend'>;
