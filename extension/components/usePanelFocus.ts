import { useEffect } from 'preact/hooks';
import type { ProductName } from '../lib/messages.ts';
import type { TabState } from '../lib/tab-state.ts';

/**
 * The card's *Show in panel*: when the page asks for an item, scroll to it and put the focus
 * on it, once per request (a request is identified by its time).
 */
export function usePanelFocus(focus: TabState['focus'], product: ProductName): void {
  const at = focus?.product === product ? focus.at : undefined;
  const index = focus?.index;
  useEffect(() => {
    if (at === undefined) return;
    const item = document.querySelector<HTMLElement>(`[data-product="${product}"][data-index="${index}"]`);
    if (!item) return;
    item.scrollIntoView({ block: 'center', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
    item.querySelector<HTMLElement>('button')?.focus({ preventScroll: true });
    item.classList.add('focused');
  }, [at, index, product]);
}
