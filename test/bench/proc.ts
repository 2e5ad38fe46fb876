import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system) a process has used so far, in milliseconds (Linux /proc). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime); the slice starts at field 3.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Resident memory of a process, in MiB. */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Samples a process's resident memory while `work` runs; the peak in MiB. */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peakMiB = rssMiB(pid);
  const timer = setInterval(() => {
    peakMiB = Math.max(peakMiB, rssMiB(pid));
  }, 100);
  try {
    const result = await work();
    return { result, peakMiB: Math.max(peakMiB, rssMiB(pid)) };
  } finally {
    clearInterval(timer);
  }
}
