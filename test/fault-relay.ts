import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP relay in front of an HTTP server that loses requests on their way, as a network, a
 * load balancer or a restarting server does. Faults are queued per path and taken by the next
 * requests to it, one each; other requests pass untouched.
 *
 * - `refuse`: the connection is cut before the request reaches the server.
 * - `drop-answer`: the request reaches the server, which does the work; its answer is cut off
 *   before any byte of it reaches the client.
 * - `cut-body`: the answer's headers and part of its body arrive, then the connection is cut.
 * - `gateway-502`: a gateway answers 502 with an HTML page instead of the server.
 * - `json-503`: a 503 with an explanation in the BFF's error shape, instead of the server.
 */
export type RelayFault = 'refuse' | 'drop-answer' | 'cut-body' | 'gateway-502' | 'json-503';

export interface FaultRelay {
  url: string;
  /** Queues faults for the next requests whose path starts with `path`. */
  fail(path: string, ...faults: RelayFault[]): void;
  /** Requests seen per path (the request line's path), in order, with what was done to each. */
  readonly seen: { method: string; path: string; fault: RelayFault | 'pass' }[];
  /** Forgets the queued faults and the requests seen. */
  reset(): void;
  /** New connections go to this server from now on (a restarted one on another port). */
  retarget(target: string): void;
  close(): Promise<void>;
}

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.[01]\r\n/;

function htmlAnswer(status: string, html: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(html)}\r\nConnection: close\r\n\r\n${html}`;
}

function jsonAnswer(status: string, body: unknown): string {
  const json = JSON.stringify(body);
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`;
}

export async function startFaultRelay(target: string): Promise<FaultRelay> {
  let { hostname, port } = new URL(target);
  const queued = new Map<string, RelayFault[]>();
  const seen: FaultRelay['seen'] = [];
  const sockets = new Set<Socket>();

  const takeFault = (path: string): RelayFault | 'pass' => {
    for (const [prefix, faults] of queued) if (path.startsWith(prefix) && faults.length) return faults.shift()!;
    return 'pass';
  };

  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let fault: RelayFault | 'pass' = 'pass';
    const cut = () => {
      client.resetAndDestroy();
      upstream.destroy();
    };

    client.on('data', (chunk) => {
      const line = REQUEST_LINE.exec(chunk.toString('latin1'));
      if (line) {
        fault = takeFault(line[2]!);
        seen.push({ method: line[1]!, path: line[2]!, fault });
        if (fault === 'refuse') return cut();
        if (fault === 'gateway-502') return void client.end(htmlAnswer('502 Bad Gateway', '<html><body><h1>502 Bad Gateway</h1></body></html>'));
        if (fault === 'json-503') {
          return void client.end(jsonAnswer('503 Service Unavailable', { error: { code: 'upstream_unreachable', message: 'The analysis service could not be reached. Try again in a minute.' } }));
        }
      } else if (fault === 'refuse' || fault === 'gateway-502' || fault === 'json-503') {
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (fault === 'drop-answer') return cut();
      if (fault === 'cut-body') {
        const headersEnd = chunk.indexOf('\r\n\r\n');
        const keep = headersEnd < 0 ? chunk.length : headersEnd + 4 + Math.floor((chunk.length - headersEnd - 4) / 2);
        client.write(chunk.subarray(0, keep), () => cut());
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fail(path, ...faults) {
      queued.set(path, [...(queued.get(path) ?? []), ...faults]);
    },
    seen,
    reset() {
      queued.clear();
      seen.splice(0);
    },
    retarget(next) {
      ({ hostname, port } = new URL(next));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
