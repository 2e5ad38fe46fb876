import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { OWN_CHROME_EXTENSION_ORIGIN } from '@redline/shared';

it('the origin the BFF allows by default is the id Chrome derives from the build key', () => {
  const config = readFileSync('extension/wxt.config.ts', 'utf8');
  const key = /CHROME_PUBLIC_KEY =\s*'([A-Za-z0-9+/=]+)'/.exec(config)![1]!;
  // Chrome: the first 32 hex digits of SHA-256 over the DER public key, spelled with a–p.
  const hex = createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 32);
  const id = [...hex].map((digit) => String.fromCharCode(97 + parseInt(digit, 16))).join('');
  expect(OWN_CHROME_EXTENSION_ORIGIN).toBe(`chrome-extension://${id}`);
});
