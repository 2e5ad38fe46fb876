import type { ProductName } from '../lib/messages.ts';
import { send } from './commands.ts';

const BUTTONS: { product: ProductName; label: string }[] = [
  { product: 'detector', label: 'Check for AI writing' },
  { product: 'humanizer', label: 'Humanize' },
  { product: 'plagiarism', label: 'Check sources' },
];

/**
 * The three checks for the text in the page: the focused editor or field, else the selection,
 * as the keyboard commands take it.
 */
export function CheckButtons({ tabId, frameId, disabled }: { tabId: number | undefined; frameId?: number; disabled?: boolean }) {
  return (
    <div class="row checks" role="group" aria-label="Checks for the text in the page">
      {BUTTONS.map(({ product, label }) => (
        <button key={product} type="button" disabled={disabled || tabId === undefined} onClick={() => tabId !== undefined && void send(tabId, { type: 'run', product, targeted: true }, frameId)}>
          {label}
        </button>
      ))}
    </div>
  );
}
