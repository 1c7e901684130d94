import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 32;

/** A new secret: whsec_ + base64 of 32 random bytes (Standard Webhooks form). */
export function generateSecret(): string {
  return PREFIX + randomBytes(MAX_KEY_BYTES).toString('base64');
}

/** The HMAC key: the base64-decoded part after whsec_ (a bare base64 key is accepted too). */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** True for whsec_ + canonical base64 of 24 to 32 bytes (what we accept from callers). */
export function isValidSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const key = Buffer.from(encoded, 'base64');
  // Round-trip rejects non-canonical base64 whose decoding silently drops characters.
  return (
    key.toString('base64') === encoded && key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES
  );
}

/** A secret with an optional predecessor that still signs until it expires (rotation overlap). */
export interface RotatingSecret {
  secret: string;
  previousSecret?: string;
  /** ISO time after which previousSecret no longer signs. */
  previousSecretExpiresAt?: string;
}

/** Secrets that sign right now: the current one first, then the previous one during the overlap. */
export function activeSecrets(record: RotatingSecret, now = Date.now()): string[] {
  const previousActive =
    record.previousSecret !== undefined &&
    record.previousSecretExpiresAt !== undefined &&
    Date.parse(record.previousSecretExpiresAt) > now;
  return previousActive ? [record.secret, record.previousSecret!] : [record.secret];
}

/** The record after a rotation: a fresh secret, the old one signing for overlapSeconds more. */
export function rotate(
  record: RotatingSecret,
  overlapSeconds: number,
  now = Date.now(),
): RotatingSecret {
  return {
    secret: generateSecret(),
    previousSecret: overlapSeconds > 0 ? record.secret : undefined,
    previousSecretExpiresAt: new Date(now + overlapSeconds * 1000).toISOString(),
  };
}
