import { browser } from 'wxt/browser';

/**
 * One value in the extension's local storage, read as its fallback while unset. What the content
 * script needs of WXT's `storage.defineItem`, without the versioning and watchers it would carry
 * into every page's script.
 */
export function localItem<T>(key: string, fallback: T) {
  return {
    async getValue(): Promise<T> {
      return ((await browser.storage.local.get(key))[key] as T | undefined) ?? fallback;
    },
    setValue: (value: T): Promise<void> => browser.storage.local.set({ [key]: value }),
  };
}
