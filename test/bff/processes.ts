import { spawn, type ChildProcess } from 'node:child_process';

/** A server started in its own process, as in production: its event loop is not the test's. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Sends a signal and waits for the process to exit; the exit code, or null after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/** Starts `command args` and waits until its output shows the URL it listens on. */
export async function startServerProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  urlPattern: RegExp,
  timeoutMs = 60_000,
): Promise<ServerProcess> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', stopTimeoutMs = 10_000) => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill(signal);
    const code = await Promise.race([exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), stopTimeoutMs))]);
    if (code === null && child.exitCode === null) child.kill('SIGKILL'); // never leave a server behind
    return code;
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = urlPattern.exec(output);
    if (match) return { child, url: match[1]!, output: () => output, stop };
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`${command} ${args.join(' ')} did not start: ${output}`);
}

/** The BFF's own log line when it listens (pino JSON). */
export const BFF_LISTENING = /"url":"(http:\/\/[^"]+)"[^\n]*BFF listening/;
/** The upstream double's first line. */
export const DOUBLE_LISTENING = /listening on (http:\/\/\S+)/;

/** Polls /healthz every 10 ms while `work` runs; the slowest answer in milliseconds. */
export async function slowestHealthCheckDuring(url: string, work: () => Promise<unknown>): Promise<number> {
  let running = true;
  let slowest = 0;
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${url}/healthz`).then((response) => response.text());
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await poller;
  }
  return slowest;
}
