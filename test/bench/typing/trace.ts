import type { CDPSession, Page } from '@playwright/test';

export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string;
  id2?: { local?: string };
  args?: { data?: { type?: string } };
}

const CATEGORIES = ['devtools.timeline', 'blink.user_timing', 'toplevel', 'disabled-by-default-devtools.timeline'];
/** With `--profile`, JavaScript samples too (they add their own overhead). */
const PROFILE_CATEGORIES = ['disabled-by-default-v8.cpu_profiler'];
/** With `--invalidations`, what made Chromium restyle, lay out and repaint (and which nodes). */
const INVALIDATION_CATEGORIES = ['disabled-by-default-devtools.timeline.invalidationTracking'];

/** Records a Chromium trace (the same one DevTools' Performance panel records) around `work`. */
export async function traced(page: Page, work: () => Promise<void>, withSamples = false, withInvalidations = false): Promise<TraceEvent[]> {
  const session: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  session.on('Tracing.dataCollected', ({ value }) => events.push(...(value as unknown as TraceEvent[])));
  await session.send('Tracing.start', { categories: [...CATEGORIES, ...(withSamples ? PROFILE_CATEGORIES : []), ...(withInvalidations ? INVALIDATION_CATEGORIES : [])].join(','), transferMode: 'ReportEvents' });
  try {
    await work();
  } finally {
    const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
    await session.send('Tracing.end');
    await complete;
    await session.detach();
  }
  return events;
}

const isTask = (event: TraceEvent) => event.ph === 'X' && (event.name === 'ThreadControllerImpl::RunTask' || event.name === 'RunTask') && event.dur !== undefined;

/** The page's renderer main thread: where its key events were dispatched. */
export function mainThread(events: TraceEvent[], eventType: string): { pid: number; tid: number } {
  const dispatch = events.find((event) => event.name === 'EventDispatch' && event.args?.data?.type === eventType);
  if (!dispatch) throw new Error(`the trace has no ${eventType} dispatch: is devtools.timeline recorded?`);
  return { pid: dispatch.pid, tid: dispatch.tid };
}

/** Top-level tasks of one thread as disjoint [start, end) intervals in µs. */
function tasksOf(events: TraceEvent[], thread: { pid: number; tid: number }): [number, number][] {
  const tasks = events.filter((event) => isTask(event) && event.pid === thread.pid && event.tid === thread.tid).sort((a, b) => a.ts - b.ts);
  const merged: [number, number][] = [];
  for (const task of tasks) {
    const last = merged.at(-1);
    if (last && task.ts < last[1]) last[1] = Math.max(last[1], task.ts + task.dur!);
    else merged.push([task.ts, task.ts + task.dur!]);
  }
  return merged;
}

export interface KeystrokeCost {
  /** Main-thread busy time from one keydown to the next, per keystroke, in ms. */
  perKey: number[];
  /** Longest task in the typing window, in ms. */
  longestTask: number;
  /** Tasks over 50 ms while typing. */
  longTasks: number;
}

/** From each keydown to the next (the last one as long as the average gap), in µs. */
export function keystrokeWindows(events: TraceEvent[]): [number, number][] {
  const thread = mainThread(events, 'keydown');
  const keydowns = events
    .filter((event) => event.name === 'EventDispatch' && event.args?.data?.type === 'keydown' && event.pid === thread.pid && event.tid === thread.tid)
    .map((event) => event.ts)
    .sort((a, b) => a - b);
  const gap = keydowns.length > 1 ? (keydowns.at(-1)! - keydowns[0]!) / (keydowns.length - 1) : 50_000;
  return keydowns.map((from, i) => [from, keydowns[i + 1] ?? from + gap]);
}

export function keystrokeCost(events: TraceEvent[]): KeystrokeCost {
  const thread = mainThread(events, 'keydown');
  const keydowns = events
    .filter((event) => event.name === 'EventDispatch' && event.args?.data?.type === 'keydown' && event.pid === thread.pid && event.tid === thread.tid)
    .map((event) => event.ts)
    .sort((a, b) => a - b);
  const tasks = tasksOf(events, thread);
  const gap = keydowns.length > 1 ? (keydowns.at(-1)! - keydowns[0]!) / (keydowns.length - 1) : 50_000;
  const perKey = keydowns.map((from, i) => {
    const to = keydowns[i + 1] ?? from + gap;
    let busy = 0;
    for (const [start, end] of tasks) busy += Math.max(0, Math.min(end, to) - Math.max(start, from));
    return busy / 1000;
  });
  const typing = tasks.filter(([start]) => start >= keydowns[0]! && start < keydowns.at(-1)! + gap);
  const durations = typing.map(([start, end]) => (end - start) / 1000);
  return { perKey, longestTask: Math.max(0, ...durations), longTasks: durations.filter((duration) => duration > 50).length };
}

/** Durations of a User Timing measure (performance.measure) in the trace, in ms. */
export function measures(events: TraceEvent[], name: string): { start: number; duration: number }[] {
  const begins = new Map<string, number>();
  const found: { start: number; duration: number }[] = [];
  for (const event of events.filter((candidate) => candidate.name === name && candidate.cat.includes('blink.user_timing')).sort((a, b) => a.ts - b.ts)) {
    const key = `${event.pid}:${event.id ?? event.id2?.local ?? ''}`;
    if (event.ph === 'b') begins.set(key, event.ts);
    else if (event.ph === 'e' && begins.has(key)) {
      found.push({ start: begins.get(key)!, duration: (event.ts - begins.get(key)!) / 1000 });
      begins.delete(key);
    } else if (event.ph === 'X' && event.dur !== undefined) found.push({ start: event.ts, duration: event.dur / 1000 });
  }
  return found;
}

/** From the start of a measure to the end of the first paint after it, in ms: when the result is on screen. */
export function toFirstPaint(events: TraceEvent[], measure: { start: number; duration: number }): number | undefined {
  const end = measure.start + measure.duration * 1000;
  const paint = events
    .filter((event) => event.ph === 'X' && (event.name === 'Paint' || event.name === 'PaintImage' || event.name === 'UpdateLayer' || event.name === 'Layerize') && event.ts >= end)
    .sort((a, b) => a.ts - b.ts)[0];
  return paint && (paint.ts + (paint.dur ?? 0) - measure.start) / 1000;
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

export const median = (values: number[]) => percentile(values, 50);

/** Invalidations recorded with `--invalidations`, by kind, reason and node, most frequent first. */
export function invalidations(events: TraceEvent[]): { what: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const event of events) {
    if (!event.cat.includes('invalidationTracking')) continue;
    const data = (event.args?.data ?? {}) as { reason?: string; nodeName?: string; invalidationSet?: unknown; changedAttribute?: string; changedClass?: string };
    const what = [event.name, data.reason, data.nodeName, data.changedAttribute && `attribute ${data.changedAttribute}`, data.changedClass && `class ${data.changedClass}`].filter(Boolean).join(' | ');
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts].map(([what, count]) => ({ what, count })).sort((a, b) => b.count - a.count);
}

/** The thread's Paint events by layer, node and clip size, the costliest first (`--invalidations`). */
export function paintsByLayer(events: TraceEvent[], thread: { pid: number; tid: number }): { where: string; count: number; ms: number }[] {
  const paints = new Map<string, { count: number; ms: number }>();
  for (const event of events) {
    if (event.name !== 'Paint' || event.pid !== thread.pid || event.tid !== thread.tid) continue;
    const data = (event.args?.data ?? {}) as { clip?: number[]; nodeId?: number; layerId?: number };
    const clip = data.clip ?? [];
    const span = (axis: 0 | 1) => {
      const values = clip.filter((_, i) => i % 2 === axis);
      return Math.round(Math.max(...values) - Math.min(...values));
    };
    const where = `layer ${data.layerId} node ${data.nodeId} clip ${span(0)}x${span(1)}`;
    const entry = paints.get(where) ?? { count: 0, ms: 0 };
    entry.count++;
    entry.ms += (event.dur ?? 0) / 1000;
    paints.set(where, entry);
  }
  return [...paints].map(([where, totals]) => ({ where, ...totals })).sort((a, b) => b.ms - a.ms);
}
