import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Upstream keys at rest: AES-256-GCM under BFF_SECRET_KEY, a fresh 96-bit IV per value, and
 * the key's id as additional data, so a ciphertext copied onto another row does not decrypt.
 * Stored as `v1.<iv>.<ciphertext>.<tag>` (base64url).
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, id: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** Throws when the value was sealed under another BFF_SECRET_KEY, for another id, or altered. */
  open(sealed: string, id: string): string {
    const [version, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || ciphertext === undefined || !tag) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(id, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** What the console shows of a key: its last four characters. */
export const maskKey = (value: string) => `••••${value.slice(-4)}`;
