import { Webhook } from 'standardwebhooks';
import type { ReceivedCall } from './receiver';

/**
 * Verifies a received call with the independent standardwebhooks library and checks that
 * X-Service-Signature carries the same value as webhook-signature. Throws when invalid.
 */
export function verifyWithStandardWebhooks(secret: string, call: ReceivedCall): unknown {
  const headers = {
    'webhook-id': String(call.headers['webhook-id'] ?? ''),
    'webhook-timestamp': String(call.headers['webhook-timestamp'] ?? ''),
    'webhook-signature': String(call.headers['webhook-signature'] ?? ''),
  };
  if (call.headers['x-service-signature'] !== headers['webhook-signature']) {
    throw new Error('X-Service-Signature differs from webhook-signature');
  }
  return new Webhook(secret).verify(call.rawBody, headers);
}
