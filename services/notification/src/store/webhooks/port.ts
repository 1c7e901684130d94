import type { WebhookRecord } from '../../model';

export type WebhookPatch = Partial<Omit<WebhookRecord, 'id' | 'organization' | 'createdAt'>>;

export interface WebhookStore {
  create(webhook: WebhookRecord): Promise<void>;
  get(organization: string, id: string): Promise<WebhookRecord | undefined>;
  /** Oldest first (createdAt, then id). */
  list(organization: string): Promise<WebhookRecord[]>;
  /** Returns the updated webhook, or undefined when it does not exist in that organization. */
  update(organization: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | undefined>;
  delete(organization: string, id: string): Promise<boolean>;
  /** Webhooks disabled now, in every organization (for the metric). */
  countDisabled(): Promise<number>;
}
