import type { TraceEvent } from './trace.ts';

/** Where a keystroke's main-thread time goes, by kind of work. */
export const KINDS = ['script (page)', 'script (extension)', 'style', 'layout', 'pre-paint', 'paint', 'layerize + commit', 'other'] as const;
export type Kind = (typeof KINDS)[number];

const KIND_OF: Record<string, Kind> = {
  UpdateLayoutTree: 'style',
  RecalculateStyles: 'style',
  Layout: 'layout',
  PrePaint: 'pre-paint',
  Paint: 'paint',
  PaintImage: 'paint',
  Layerize: 'layerize + commit',
  UpdateLayer: 'layerize + commit',
  Commit: 'layerize + commit',
};
const SCRIPT = new Set(['FunctionCall', 'EvaluateScript', 'v8.callFunction', 'v8.run', 'v8.execute', 'TimerFire', 'FireAnimationFrame', 'FireIdleCallback', 'EventDispatch', 'v8.compile', 'MinorGC', 'MajorGC']);

function isExtensionScript(event: TraceEvent): boolean {
  if (event.name !== 'FunctionCall' && event.name !== 'EvaluateScript' && event.name !== 'v8.compile') return false;
  const data = (event.args as { data?: { url?: string; scriptName?: string } } | undefined)?.data;
  return (data?.url ?? data?.scriptName ?? '').startsWith('chrome-extension:');
}

interface Frame {
  end: number;
  kind: Kind;
  extension: boolean;
  /** Where this frame's own (not its children's) time resumes. */
  cursor: number;
}

/**
 * Self time of one thread's trace events per kind of work, charged to the windows [from, to)
 * (µs) it falls in. An event without a kind of its own takes its parent's; script is the
 * extension's when a chrome-extension:// function call or evaluation is on the stack.
 */
export function breakdown(events: TraceEvent[], thread: { pid: number; tid: number }, windows: [number, number][]): Record<Kind, number>[] {
  const result = windows.map(() => Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>);
  const charge = (kind: Kind, from: number, to: number) => {
    if (to <= from) return;
    let low = 0;
    let high = windows.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (windows[mid]![1] > from) high = mid;
      else low = mid + 1;
    }
    for (let i = low; i < windows.length && windows[i]![0] < to; i++) {
      const overlap = Math.min(to, windows[i]![1]) - Math.max(from, windows[i]![0]);
      if (overlap > 0) result[i]![kind] += overlap / 1000;
    }
  };
  const own = events
    .filter((event) => event.ph === 'X' && event.dur !== undefined && event.pid === thread.pid && event.tid === thread.tid)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const stack: Frame[] = [];
  const close = () => {
    const frame = stack.pop()!;
    charge(frame.kind, frame.cursor, frame.end);
    const parent = stack.at(-1);
    if (parent) parent.cursor = Math.max(parent.cursor, frame.end);
  };
  for (const event of own) {
    while (stack.length && stack.at(-1)!.end <= event.ts) close();
    const parent = stack.at(-1);
    if (parent) {
      charge(parent.kind, parent.cursor, event.ts);
      parent.cursor = event.ts;
    }
    const extension = (parent?.extension ?? false) || isExtensionScript(event);
    let kind = KIND_OF[event.name] ?? parent?.kind ?? 'other';
    if (SCRIPT.has(event.name) || kind.startsWith('script')) kind = extension ? 'script (extension)' : kind.startsWith('script') ? kind : 'script (page)';
    const end = Math.min(event.ts + event.dur!, parent?.end ?? Infinity);
    stack.push({ end, kind, extension, cursor: event.ts });
  }
  while (stack.length) close();
  return result;
}

/**
 * The extension's script time by what called it (an event listener by event type, an
 * animation frame, a mutation observer's microtask, an idle callback), total ms over the
 * trace: which of its callbacks a keystroke pays for.
 */
export function extensionCallers(events: TraceEvent[], thread: { pid: number; tid: number }): { caller: string; ms: number; calls: number }[] {
  const own = events
    .filter((event) => event.ph === 'X' && event.dur !== undefined && event.pid === thread.pid && event.tid === thread.tid)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const stack: TraceEvent[] = [];
  const totals = new Map<string, { ms: number; calls: number }>();
  for (const event of own) {
    while (stack.length && stack.at(-1)!.ts + stack.at(-1)!.dur! <= event.ts) stack.pop();
    if (isExtensionScript(event) && !stack.some(isExtensionScript)) {
      const parent = [...stack].reverse().find((candidate) => !['FunctionCall', 'v8.callFunction', 'v8.execute', 'v8.run'].includes(candidate.name));
      const type = (parent?.args as { data?: { type?: string } } | undefined)?.data?.type;
      const caller = parent ? `${parent.name}${type ? ` (${type})` : ''}` : '(top level)';
      const total = totals.get(caller) ?? { ms: 0, calls: 0 };
      total.ms += event.dur! / 1000;
      total.calls++;
      totals.set(caller, total);
    }
    stack.push(event);
  }
  return [...totals].map(([caller, total]) => ({ caller, ...total })).sort((a, b) => b.ms - a.ms);
}
