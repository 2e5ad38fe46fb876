import type { TraceEvent } from './trace.ts';

/**
 * Where a renderer main thread's time went between two instants: self time per trace event
 * name (an event's duration minus its children's), largest first.
 */
export function topEvents(events: TraceEvent[], thread: { pid: number; tid: number }, from: number, to: number, count = 15): { name: string; ms: number }[] {
  const own = events
    .filter((event) => event.ph === 'X' && event.dur !== undefined && event.pid === thread.pid && event.tid === thread.tid && event.ts >= from && event.ts < to)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const self = new Map<string, number>();
  const stack: TraceEvent[] = [];
  for (const event of own) {
    while (stack.length && stack.at(-1)!.ts + stack.at(-1)!.dur! <= event.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - event.dur!);
    self.set(event.name, (self.get(event.name) ?? 0) + event.dur!);
    stack.push(event);
  }
  return [...self].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms).slice(0, count);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

/** Self time per JavaScript function from the trace's CPU profile samples (`--profile` records them). */
export function topFunctions(events: TraceEvent[], thread: { pid: number; tid: number }, count = 15): { name: string; ms: number }[] {
  const nodes = new Map<number, ProfileNode>();
  const self = new Map<string, number>();
  for (const event of events) {
    if (event.name !== 'ProfileChunk' || event.pid !== thread.pid) continue;
    const data = (event.args as { data?: { cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] } }).data;
    for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    const samples = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    samples.forEach((id, i) => {
      const node = nodes.get(id);
      const frame = node?.callFrame;
      const name = frame ? `${frame.functionName || '(anonymous)'} ${(frame.url ?? '').split('/').slice(-2).join('/')}:${frame.lineNumber}:${frame.columnNumber}` : `node ${id}`;
      self.set(name, (self.get(name) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
    });
  }
  return [...self].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms).slice(0, count);
}
