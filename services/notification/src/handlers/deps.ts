import type { NotificationConfig } from '../config';
import type { DeliveryEngine } from '../delivery/engine';
import type { EventSchemas } from '../event-types/schemas';
import type { OrgSigningSecrets } from '../signing/org-secrets';
import type { EventBus, UrlPolicy } from '@switchyard/shared';
import type { NotificationStores } from '../store';

/** What the transport-free RPC handlers need. */
export interface HandlerDeps {
  stores: NotificationStores;
  engine: DeliveryEngine;
  orgSecrets: OrgSigningSecrets;
  policy: UrlPolicy;
  config: NotificationConfig;
  /** Event types' schemas, checked when saved and compiled once. */
  eventSchemas: EventSchemas;
  /** Where published domain events go (the notification consumer delivers them). */
  bus: EventBus;
  /** The time "now" is (tests set it); the system clock otherwise. */
  clock?: () => Date;
}
