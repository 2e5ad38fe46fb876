import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { BffConfig } from '../config.ts';
import { HIDDEN_CHARACTER_RULE, hiddenCharacter } from '../hidden-characters.ts';
import type { ConsoleStore, UpstreamKeyRecord } from '../storage/console-store.ts';
import type { MemberRecord } from '../storage/ledger.ts';
import { PROBE_COST_NOTE, probeKey } from '../upstream/key-probe.ts';
import type { UpstreamKey, UpstreamKeyring } from '../upstream/keyring.ts';
import { maskKey, type SecretBox } from '../upstream/secret-box.ts';
import { ConsoleError } from './errors.ts';

export interface UpstreamKeyRoutesDeps {
  config: BffConfig;
  store: () => Promise<ConsoleStore>;
  keyring: UpstreamKeyring | undefined;
  secretBox: SecretBox | undefined;
  now: () => number;
  actor: (res: Response) => MemberRecord;
  audit: (req: Request, actor: MemberRecord, action: string, target: string | null, detail?: Record<string, unknown>) => Promise<void>;
  parse: <T>(schema: z.ZodType<T>, body: unknown) => T;
}

/**
 * A label is shown on the page and in the audit log: controls (a NUL, which PostgreSQL also
 * refuses: a 500 before), line breaks, direction overrides and invisible characters are refused,
 * named by code point, as in a client's name (auth/clients.ts).
 */
const hiddenCharacterProblem = (label: string) => {
  const hidden = hiddenCharacter(label);
  return hidden && `a name without ${HIDDEN_CHARACTER_RULE}: ${hidden.code} at position ${hidden.index}`;
};

const NewKeyBody = z
  .object({
    label: z
      .string()
      .trim()
      .min(1, 'give the key a name')
      .max(64)
      .superRefine((label, context) => {
        const problem = hiddenCharacterProblem(label);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      }),
    key: z.string().trim().min(8, 'an upstream key is longer than that').max(512).regex(/^[\x21-\x7e]+$/, 'paste the key alone: letters, digits and punctuation, no spaces'),
  })
  .strict();

export const SECRET_KEY_MISSING =
  'This BFF has no BFF_SECRET_KEY, so it cannot store upstream keys encrypted and refuses to store them. Set BFF_SECRET_KEY (32 random bytes: openssl rand -base64 32) or BFF_SECRET_KEY_FILE and restart the BFF. Meanwhile UPSTREAM_API_KEY keeps working as before.';

/**
 * The upstream key's lifecycle in the console (upstream-api.md 2.7, 3.1): paste (prepared,
 * stored encrypted, shown masked from then on), test with one cheap real request, mark saved,
 * activate. Answers never carry a key's value, only its mask.
 */
export function upstreamKeyRoutes(admin: Router, deps: UpstreamKeyRoutesDeps): void {
  const { config, store, keyring, secretBox, now, actor, audit, parse } = deps;

  const find = async (id: string): Promise<UpstreamKeyRecord> => {
    const key = (await (await store()).upstreamKeys()).find((candidate) => candidate.id === id);
    if (!key) throw new ConsoleError(404, 'not_found', 'There is no upstream key with this id.');
    return key;
  };
  const valueOf = (key: UpstreamKeyRecord) => {
    if (!secretBox) throw new ConsoleError(409, 'secret_key_missing', SECRET_KEY_MISSING);
    try {
      return secretBox.open(key.ciphertext, key.id);
    } catch {
      throw new ConsoleError(409, 'secret_key_missing', 'This key cannot be decrypted: BFF_SECRET_KEY is not the one it was stored with. Restore that secret, or remove this key and paste it again.');
    }
  };

  /** A key's id as the console shows it: the environment's key is "env" (its recorded id is a digest of its value). */
  const shownId = (key: UpstreamKey | undefined) => (key === undefined ? null : key === keyring?.envKey ? 'env' : key.id);

  admin.get('/upstream-keys', async (_req, res) => {
    const consoleStore = await store();
    const keys = await consoleStore.upstreamKeys();
    const active = keyring?.active();
    const rows = await Promise.all(
      keys.map(async ({ ciphertext: _secret, account, ...key }) => ({
        ...key,
        inUse: active?.id === key.id,
        sharesActiveAccount: active !== undefined && active.id !== key.id && active.account === account,
        pendingOperations: await consoleStore.pendingOperationsWithKey(key.id),
      })),
    );
    const envKey = keyring?.envKey;
    res.json({
      mode: config.upstream ? 'upstream' : 'offline',
      storing: secretBox ? { enabled: true } : { enabled: false, reason: SECRET_KEY_MISSING },
      envKey: envKey ? { masked: maskKey(envKey.value), inUse: active === envKey } : null,
      activeKeyId: shownId(active),
      keys: rows,
      testNote: PROBE_COST_NOTE,
    });
  });

  admin.post('/upstream-keys', async (req, res) => {
    if (!secretBox) throw new ConsoleError(409, 'secret_key_missing', SECRET_KEY_MISSING);
    const { label, key: value } = parse(NewKeyBody, req.body);
    const consoleStore = await store();
    const existing = await consoleStore.upstreamKeys();
    if (keyring?.envKey?.value === value) throw new ConsoleError(409, 'conflict', 'This is the key already set in UPSTREAM_API_KEY.');
    for (const other of existing) {
      let same = false;
      try {
        same = secretBox.open(other.ciphertext, other.id) === value;
      } catch {
        // stored under another secret: cannot be this one's duplicate as far as we can tell
      }
      if (same) throw new ConsoleError(409, 'conflict', `This key is already listed as "${other.label}".`);
    }
    const id = `uk_${randomBytes(6).toString('hex')}`;
    const record: UpstreamKeyRecord = {
      id,
      label,
      masked: maskKey(value),
      ciphertext: secretBox.seal(value, id),
      state: 'prepared',
      // An account of its own until a test shows it shares the active key's.
      account: `acct_${randomBytes(6).toString('hex')}`,
      createdAt: now(),
      createdBy: actor(res).id,
      test: null,
      savedAt: null,
      activatedAt: null,
    };
    await consoleStore.addUpstreamKey(record);
    await audit(req, actor(res), 'upstream_key_added', id, { label, masked: record.masked });
    res.status(201).json({ key: { id, label, masked: record.masked, state: record.state } });
  });

  admin.post('/upstream-keys/:id/test', async (req, res) => {
    const key = await find(req.params.id!);
    if (!config.upstream || !keyring) throw new ConsoleError(409, 'offline_mode', 'The BFF runs offline (no UPSTREAM_BASE_URL), so a key cannot be tested against the upstream.');
    const active = keyring.active();
    const result = await probeKey(config.upstream.baseUrl, valueOf(key), active && active.id !== key.id ? active.value : undefined);
    const account = result.account === 'same' && active ? active.account : result.account === 'other' ? `acct_${randomBytes(6).toString('hex')}` : key.account;
    const test = { at: now(), ok: result.ok, summary: result.summary, wordsCharged: result.wordsCharged };
    await (await store()).recordKeyTest(key.id, test, account);
    await keyring.changed(); // a previous key's account decides whether its operations may move to the active key
    await audit(req, actor(res), 'upstream_key_tested', key.id, { label: key.label, ok: result.ok, account: result.account, wordsCharged: result.wordsCharged });
    res.json({ test, account: result.account });
  });

  admin.post('/upstream-keys/:id/saved', async (req, res) => {
    const key = await find(req.params.id!);
    if (!(await (await store()).markKeySaved(key.id, now()))) throw new ConsoleError(409, 'conflict', `This key is ${key.state}, not prepared.`);
    await audit(req, actor(res), 'upstream_key_saved', key.id, { label: key.label });
    res.json({ state: 'saved' });
  });

  // Before '/:id/activate': the environment's key has no stored record to find.
  admin.post('/upstream-keys/env/activate', async (req, res) => {
    if (!keyring?.envKey) throw new ConsoleError(409, 'conflict', 'UPSTREAM_API_KEY is not set on this BFF: there is no environment key to go back to.');
    const previous = keyring.active();
    if (!(await (await store()).useEnvironmentKey())) throw new ConsoleError(409, 'conflict', 'The key from UPSTREAM_API_KEY is already the one in use.');
    await keyring.changed();
    const inUse = keyring.active() === keyring.envKey;
    await audit(req, actor(res), 'upstream_key_activated', 'env', { label: 'UPSTREAM_API_KEY', previous: shownId(previous), sameAccount: previous?.account === keyring.envKey.account });
    res.json({ state: 'active', inUse });
  });

  admin.post('/upstream-keys/:id/activate', async (req, res) => {
    const key = await find(req.params.id!);
    if (!keyring) throw new ConsoleError(409, 'offline_mode', 'The BFF runs offline (no UPSTREAM_BASE_URL): there is no upstream to send a key to.');
    if (key.state === 'prepared') throw new ConsoleError(409, 'conflict', 'Mark this key saved first: confirm that it is kept in your secret store, since the console never shows it again.');
    if (!key.test?.ok) throw new ConsoleError(409, 'conflict', 'Test this key first: only a key the upstream accepted can be activated.');
    valueOf(key); // decryptable here, so every instance with this BFF_SECRET_KEY can use it
    const previous = keyring.active();
    if (!(await (await store()).activateUpstreamKey(key.id, now()))) throw new ConsoleError(409, 'conflict', `This key is ${key.state}; only a saved or previous key can be activated.`);
    await keyring.changed();
    const inUse = keyring.active()?.id === key.id;
    await audit(req, actor(res), 'upstream_key_activated', key.id, { label: key.label, previous: shownId(previous), sameAccount: previous?.account === key.account });
    res.json({ state: 'active', inUse });
  });

  admin.post('/upstream-keys/:id/remove', async (req, res) => {
    const key = await find(req.params.id!);
    if (key.state === 'active') throw new ConsoleError(409, 'conflict', 'This key is active. Activate another key first.');
    const consoleStore = await store();
    const pending = await consoleStore.pendingOperationsWithKey(key.id);
    if (pending > 0) throw new ConsoleError(409, 'conflict', `${pending} operation(s) that started with this key are still running and may need it to finish. Try again when they are done.`);
    if (!(await consoleStore.removeUpstreamKey(key.id, now()))) throw new ConsoleError(409, 'conflict', 'This key could not be removed (it was just activated, or an operation just started with it).');
    await keyring?.changed();
    await audit(req, actor(res), 'upstream_key_removed', key.id, { label: key.label });
    res.json({ removed: true });
  });
}
