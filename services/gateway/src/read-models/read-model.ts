import type { OrganizationChanged } from '@switchyard/shared';

/** What changed of an organization: its policy or keys (the gateway's admin API), its webhooks (notification). */
export type Change = OrganizationChanged['change'] | 'webhooks';

/**
 * A replica's copy of what other stores or services hold, answered from memory. The change feed
 * tells each one every change made on any replica; a replica's own changes tell it at once too.
 * Each forgets what the change made stale and ignores the others.
 */
export interface ReadModel {
  changed(organization: string, change: Change): void;
}
