import {
  createRpcClient,
  protos,
  type AssistantServiceRpc,
  type ContentServiceRpc,
  type NotificationServiceRpc,
  type RecommendationServiceRpc,
  type RpcClient,
} from '@switchyard/shared';

/** Training a model on demand takes seconds to minutes, not a call's usual deadline. */
const REBUILD_DEADLINE_MS = 120_000;

/** The four downstream services the gateway calls, each client built once from its service definition. */
export interface GatewayClients {
  content: RpcClient<ContentServiceRpc>;
  assistant: RpcClient<AssistantServiceRpc>;
  recommendation: RpcClient<RecommendationServiceRpc>;
  notification: RpcClient<NotificationServiceRpc>;
}

export interface ServiceAddresses {
  contentAddr: string;
  assistantAddr: string;
  recommendationAddr: string;
  notificationAddr: string;
}

export function createGatewayClients(
  addresses: ServiceAddresses,
  deadlineMs: number,
): GatewayClients {
  return {
    content: createRpcClient(protos.content().ContentService, addresses.contentAddr, deadlineMs),
    assistant: createRpcClient(
      protos.assistant().AssistantService,
      addresses.assistantAddr,
      deadlineMs,
    ),
    recommendation: createRpcClient<RecommendationServiceRpc>(
      protos.recommendation().RecommendationService,
      addresses.recommendationAddr,
      deadlineMs,
      {
        rebuildModel: Math.max(deadlineMs, REBUILD_DEADLINE_MS),
      },
    ),
    notification: createRpcClient(
      protos.notification().NotificationService,
      addresses.notificationAddr,
      deadlineMs,
    ),
  };
}

export function closeGatewayClients(clients: GatewayClients): void {
  for (const client of Object.values(clients)) client.close();
}

/** Address and grpc.health.v1 service name of each downstream, for /readyz. */
export function healthTargets(
  clients: GatewayClients,
): Array<{ name: keyof GatewayClients; address: string; service: string }> {
  return (Object.keys(clients) as Array<keyof GatewayClients>).map((name) => ({
    name,
    address: clients[name].address,
    service: clients[name].serviceName,
  }));
}
