import type { EventEnvelope } from '@switchyard/shared';
import type { EventFanOut } from './fan-out';

type BillingEvent = EventEnvelope<'invoice.paid'> | EventEnvelope<'invoice.failed'>;

/** invoice.paid / invoice.failed -> invoice_paid / invoice_failed webhooks. */
export async function handleBillingEvent(event: BillingEvent, fanOut: EventFanOut): Promise<void> {
  const name = event.type === 'invoice.paid' ? 'invoice_paid' : 'invoice_failed';
  const body: Record<string, unknown> = {
    event: name,
    organization: event.organization,
    invoiceId: event.data.invoiceId,
    amount: event.data.amount,
    currency: event.data.currency,
  };
  if (event.type === 'invoice.failed') body.failureReason = event.data.failureReason;
  body.id = event.id;
  body.occurredAt = event.time;
  await fanOut.send(event.organization, name, event.id, event.time, body);
}
