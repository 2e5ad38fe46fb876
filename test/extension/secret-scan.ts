import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** What must never be in a built extension: secrets, upstream access, and the server-side analyzers. */
export const FORBIDDEN: { name: string; pattern: RegExp }[] = [
  { name: 'member token', pattern: /rl_[A-Za-z0-9_-]{43}/ },
  { name: 'upstream double key', pattern: /demo-key-[a-z-]+|bench-key/ },
  { name: 'upstream API key header', pattern: /x-api-key/i },
  { name: 'upstream endpoint', pattern: /\/api\/(detect|humanize|plagiarism)\/|\/api\/mcp/ },
  { name: 'private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { name: 'payment-style secret', pattern: /\b[sr]k_(live|test)_[A-Za-z0-9]{10,}/ },
  { name: 'cloud access key', pattern: /\bAKIA[0-9A-Z]{16}\b/ },
  { name: 'hard-coded credential', pattern: /(api[_-]?key|secret|passw(or)?d|token)["']?\s*[:=]\s*["'][A-Za-z0-9_\-+/]{16,}["']/i },
  { name: 'server-side analyzer', pattern: /navigate the complexities|encyclopedia\.example\.org/ },
];

export interface Finding {
  file: string;
  name: string;
  excerpt: string;
}

export function scanForSecrets(directory: string): Finding[] {
  const findings: Finding[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const file = path.join(folder, entry);
      if (statSync(file).isDirectory()) walk(file);
      else {
        const content = readFileSync(file, 'utf8');
        for (const { name, pattern } of FORBIDDEN) {
          const match = pattern.exec(content);
          if (match) findings.push({ file: path.relative(directory, file), name, excerpt: match[0].slice(0, 24) });
        }
      }
    }
  };
  walk(directory);
  return findings;
}
