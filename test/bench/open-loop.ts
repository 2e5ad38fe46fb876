import { Pool } from 'undici';

export interface OpenLoopOptions {
  url: string;
  /** Requests per second, sent on schedule whether or not earlier ones have answered. */
  rate: number;
  seconds: number;
  headers: (id: string) => Record<string, string>;
  body: (id: string) => string;
  nextId: () => string;
}

export interface OpenLoopResult {
  sent: number;
  errors: number;
  /** Milliseconds from each request's scheduled start to its full answer (no coordinated omission). */
  p50: number;
  p99: number;
}

/**
 * An open-loop load: a fixed arrival rate, latency measured from when each request was due,
 * so a slow answer cannot hold the next requests back and hide its own cost.
 */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const url = new URL(options.url);
  const pool = new Pool(url.origin, { connections: 256, keepAliveTimeout: 10_000 });
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now() + 20;

  const fire = async (due: number) => {
    const id = options.nextId();
    try {
      const response = await pool.request({ path: url.pathname, method: 'POST', headers: options.headers(id), body: options.body(id) });
      await response.body.dump();
      if (response.statusCode >= 300) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - due);
  };

  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(fire(due));
  }
  await Promise.all(inFlight);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { sent: total, errors, p50: at(0.5), p99: at(0.99) };
}
