import { localItem } from './local-item.ts';
import type { DetectorVersion, HumanizerModel } from '@redline/shared';

export interface Settings {
  /** The BFF's base URL, e.g. http://127.0.0.1:8787. */
  bffUrl: string;
  defaultModel: HumanizerModel;
  /** Ask before sending a text longer than this many words. */
  confirmAboveWords: number;
  /** Hostnames where the extension stays off. */
  disabledSites: string[];
  /** Terms a rewrite must keep (issue: review aids). */
  keepTerms: string[];
}

export const DEFAULT_SETTINGS: Settings = {
  bffUrl: 'http://127.0.0.1:8787',
  defaultModel: 'cognia',
  confirmAboveWords: 2000,
  disabledSites: [],
  keepTerms: [],
};

export const settingsItem = localItem<Settings>('settings', DEFAULT_SETTINGS);

/** A member token pasted under Advanced on the options page (signing in is the usual way: lib/account.ts). */
export const tokenItem = localItem('memberToken', '');

/**
 * The detector version every check asks for: v3 is the only one whose answer (sentence labels)
 * is documented, and the one highlighting reads. Not a setting, so no choice can break highlighting.
 */
export const DETECTOR_VERSION: DetectorVersion = 'v3';

export async function getSettings(): Promise<Settings> {
  return { ...DEFAULT_SETTINGS, ...(await settingsItem.getValue()) };
}

export async function updateSettings(patch: Partial<Settings>): Promise<Settings> {
  const next = { ...(await getSettings()), ...patch };
  await settingsItem.setValue(next);
  return next;
}

export function isSiteDisabled(settings: Settings, hostname: string): boolean {
  return settings.disabledSites.includes(hostname);
}
