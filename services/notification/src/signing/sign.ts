import { createHmac } from 'node:crypto';
import { secretKey } from './secrets';

/** v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"> for one secret (Standard Webhooks). */
export function signatureFor(
  secret: string,
  messageId: string,
  timestamp: number,
  body: Buffer,
): string {
  const mac = createHmac('sha256', secretKey(secret));
  mac.update(`${messageId}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  /** The interface's header name; same value as webhook-signature. */
  'X-Service-Signature': string;
}

/**
 * Headers for one attempt. body must be the exact bytes sent. With several secrets (rotation
 * overlap) the signatures are space-separated so receivers on either secret verify.
 */
export function signatureHeaders(
  secrets: string[],
  messageId: string,
  timestampSeconds: number,
  body: Buffer,
): SignatureHeaders {
  if (secrets.length === 0) throw new Error('no signing secret');
  const signature = secrets
    .map((secret) => signatureFor(secret, messageId, timestampSeconds, body))
    .join(' ');
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
    'X-Service-Signature': signature,
  };
}
