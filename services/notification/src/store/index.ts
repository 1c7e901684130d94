import { InMemoryDeliveryStore, type DeliveryStore } from './delivery-store';
import { InMemoryProcessedEvents, type ProcessedEvents } from './processed-events';
import { InMemorySigningSecretStore, type SigningSecretStore } from './signing-secret-store';
import { InMemoryUsageStore, type UsageStore } from './usage-store';
import { InMemoryWebhookStore, type WebhookStore } from './webhook-store';

export interface NotificationStores {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  signingSecrets: SigningSecretStore;
  usage: UsageStore;
  processedEvents: ProcessedEvents;
}

export function inMemoryStores(): NotificationStores {
  return {
    webhooks: new InMemoryWebhookStore(),
    deliveries: new InMemoryDeliveryStore(),
    signingSecrets: new InMemorySigningSecretStore(),
    usage: new InMemoryUsageStore(),
    processedEvents: new InMemoryProcessedEvents(),
  };
}

export * from './delivery-store';
export * from './processed-events';
export * from './signing-secret-store';
export * from './usage-store';
export * from './webhook-store';
