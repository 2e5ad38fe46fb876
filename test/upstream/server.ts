import type { AddressInfo } from 'node:net';
import { createUpstreamDouble, type UpstreamDouble, type UpstreamDoubleOptions } from './app.ts';

export interface RunningUpstreamDouble extends UpstreamDouble {
  url: string;
  close(): Promise<void>;
}

/** Starts the double on a port (0 picks a free one) and resolves once it listens. */
export async function startUpstreamDouble(
  options: UpstreamDoubleOptions & { port?: number; host?: string } = {},
): Promise<RunningUpstreamDouble> {
  const double = createUpstreamDouble(options);
  const host = options.host ?? '127.0.0.1';
  const server = double.app.listen(options.port ?? 0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  });
}
