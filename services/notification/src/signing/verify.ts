import { timingSafeEqual } from 'node:crypto';
import { signatureFor } from './sign';

export type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Receiver-side check of a Switchyard webhook: the timestamp is within toleranceSeconds of now
 * and one of the v1 signatures in webhook-signature (or X-Service-Signature) matches the HMAC of
 * "{webhook-id}.{webhook-timestamp}.{rawBody}" under secret. rawBody must be the bytes received.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  rawBody: Buffer | string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature') ?? header(headers, 'x-service-signature');
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  const sentAt = Number(timestamp);
  if (Math.abs(nowSeconds - sentAt) > toleranceSeconds) return false;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody;
  const expected = signatureFor(secret, id, sentAt, body);
  return signatures
    .split(' ')
    .some((candidate) => candidate.startsWith('v1,') && sameText(candidate, expected));
}
