import { ContentClient, CONTENT_SERVICE_NAME } from './content-client';
import { AssistantClient, ASSISTANT_SERVICE_NAME } from './assistant-client';
import { RecommendationClient, RECOMMENDATION_SERVICE_NAME } from './recommendation-client';
import { NotificationClient, NOTIFICATION_SERVICE_NAME } from './notification-client';

export { ContentClient, AssistantClient, RecommendationClient, NotificationClient };

/** The four downstream services the gateway calls. */
export interface GatewayClients {
  content: ContentClient;
  assistant: AssistantClient;
  recommendation: RecommendationClient;
  notification: NotificationClient;
}

export interface ServiceAddresses {
  contentAddr: string;
  assistantAddr: string;
  recommendationAddr: string;
  notificationAddr: string;
}

export function createGatewayClients(addresses: ServiceAddresses, deadlineMs: number): GatewayClients {
  return {
    content: new ContentClient(addresses.contentAddr, deadlineMs),
    assistant: new AssistantClient(addresses.assistantAddr, deadlineMs),
    recommendation: new RecommendationClient(addresses.recommendationAddr, deadlineMs),
    notification: new NotificationClient(addresses.notificationAddr, deadlineMs),
  };
}

export function closeGatewayClients(clients: GatewayClients): void {
  for (const client of Object.values(clients)) client.close();
}

/** Address and grpc.health.v1 service name of each downstream, for /readyz. */
export function healthTargets(clients: GatewayClients): Array<{ name: keyof GatewayClients; address: string; service: string }> {
  return [
    { name: 'content', address: clients.content.address, service: CONTENT_SERVICE_NAME },
    { name: 'assistant', address: clients.assistant.address, service: ASSISTANT_SERVICE_NAME },
    { name: 'recommendation', address: clients.recommendation.address, service: RECOMMENDATION_SERVICE_NAME },
    { name: 'notification', address: clients.notification.address, service: NOTIFICATION_SERVICE_NAME },
  ];
}
