import { createHash } from 'node:crypto';

/**
 * A delivery's id and message id (the webhook-id header), derived from its organization, event
 * and target: an event handled again (a replica took over a partition before the first one
 * committed it) makes the same delivery, logged once, and a resend carries the same webhook-id,
 * so receivers deduplicate it.
 */
export function deliveryIdentity(
  organization: string,
  eventId: string,
  target: string,
): { id: string; messageId: string } {
  const digest = createHash('sha256')
    .update(`${organization}\u0000${eventId}\u0000${target}`)
    .digest('hex');
  return { id: `dlv_${digest.slice(0, 24)}`, messageId: `msg_${digest.slice(24, 48)}` };
}
