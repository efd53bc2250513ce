import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** Random id with a readable prefix: `ws_`, `con_`, `key_` ... */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/** Deterministic id: the same inputs always give the same id (idempotent upserts). */
export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}`;
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** API keys are 32 random bytes: a fast hash is enough (no dictionary to attack) and lookups stay O(1). */
export function hashApiKey(key: string): string {
  return sha256(`engram-api-key:${key}`);
}

export function newApiKey(): string {
  return `egk_${randomBytes(32).toString('base64url')}`;
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/**
 * Encrypts provider credentials at rest with AES-256-GCM. The key is derived from the operator's
 * `ENGRAM_SECRET_KEY` (or the generated one in the data dir); ciphertext format `v1:iv:tag:data` (base64url).
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(secret: string): SecretBox {
  if (secret.length < 16) throw new Error('secret key must be at least 16 characters');
  const key = scryptSync(secret, 'engram-secret-box-v1', 32);
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(':');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split(':');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
