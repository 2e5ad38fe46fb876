import type { TabCheck } from '../lib/tab-state.ts';
import { Elapsed } from './Elapsed.tsx';

export function Status({ check, label }: { check: TabCheck; label: string }) {
  if (check.status === 'checking') {
    return (
      <p aria-live="polite">
        {label}: {check.words.toLocaleString()} words… <Elapsed since={check.startedAt} />
      </p>
    );
  }
  if (check.status === 'error') return <p class="error" role="alert">{check.error?.message}</p>;
  return null;
}
