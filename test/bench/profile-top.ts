/**
 * Where a CPU profile's time went: self time by function and by package, idle excluded.
 *
 *   npx tsx test/bench/profile-top.ts FILE.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
if (positionals.length !== 1) {
  console.error('usage: profile-top.ts FILE.cpuprofile [--top N]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const top = Number(values.top);

const timeByNode = new Map<number, number>();
profile.samples.forEach((id, i) => timeByNode.set(id, (timeByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

/** node_modules package, node internals, GC, or this repository's file. */
function owner(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[1] ?? url.slice(5)}`;
  const inRepo = /(bff|shared|test)\/src\/.*|test\/.*/.exec(url);
  return inRepo ? inRepo[0] : url;
}

const parentOf = new Map<number, ProfileNode>();
const nodeById = new Map(profile.nodes.map((node) => [node.id, node]));
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
/**
 * The package or file of the nearest frame outside Node itself: native calls and Node's
 * internals (socket writes, hashing, streams) charged to the code that made them.
 */
function callerOwner(node: ProfileNode): string {
  for (let current: ProfileNode | undefined = node; current; current = parentOf.get(current.id)) {
    const { url, functionName } = current.callFrame;
    if (url && !url.startsWith('node:')) return owner(url, functionName);
  }
  return owner('', node.callFrame.functionName);
}

const byFunction = new Map<string, number>();
const byCaller = new Map<string, number>();
const byOwner = new Map<string, number>();
let busy = 0;
for (const node of profile.nodes) {
  const time = timeByNode.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === '(idle)') continue;
  busy += time;
  const where = owner(url, functionName);
  byOwner.set(where, (byOwner.get(where) ?? 0) + time);
  const caller = callerOwner(nodeById.get(node.id)!);
  byCaller.set(caller, (byCaller.get(caller) ?? 0) + time);
  const name = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + time);
}

const print = (title: string, rows: Map<string, number>) => {
  console.log(`\n${title} (share of ${(busy / 1e6).toFixed(1)} s busy)`);
  for (const [name, time] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * time) / busy).toFixed(1).padStart(5)}%  ${name}`);
  }
};
print('Self time by package or file', byOwner);
print('Time by package, with native calls and Node internals charged to the package that made them', byCaller);
print('Self time by function', byFunction);
