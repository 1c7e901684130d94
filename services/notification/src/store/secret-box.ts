import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/** A stored secret that opens with none of the keys (or is not sealed at all). */
export class UnreadableSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableSecretError';
  }
}

/**
 * AES-256-GCM for secrets at rest, with a keyring: the first key seals, every key opens (the
 * previous SECRETS_ENCRYPTION_KEYs during a rotation, SECRETS_ENCRYPTION_OLD_KEYS). The context
 * (e.g. "webhook:wh_1") is authenticated data, so a sealed value copied onto another record does
 * not open. Format: v1.<iv>.<tag>.<ciphertext> (base64url); the GCM tag tells which key sealed it.
 * Never log a key or a plaintext.
 */
export class SecretBox {
  private readonly keys: Buffer[];

  constructor(key: Buffer, oldKeys: Buffer[] = []) {
    this.keys = [key, ...oldKeys];
    if (this.keys.some((k) => k.length !== 32))
      throw new Error('the secrets encryption key must be 32 bytes');
  }

  static generateKey(): Buffer {
    return randomBytes(32);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string, context: string): string {
    return this.openWithKey(sealed, context).plaintext;
  }

  /** The plaintext and which key of the ring opened it (0: the current key; more: an old one). */
  openWithKey(sealed: string, context: string): { plaintext: string; keyIndex: number } {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined)
      throw new UnreadableSecretError(`stored secret of ${context} is not sealed`);
    for (const [keyIndex, key] of this.keys.entries()) {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        const plaintext = Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
        return { plaintext, keyIndex };
      } catch {
        // Another key of the ring, or a tampered value; the message carries neither.
      }
    }
    throw new UnreadableSecretError(
      `stored secret of ${context} does not decrypt with SECRETS_ENCRYPTION_KEY or SECRETS_ENCRYPTION_OLD_KEYS`,
    );
  }
}
