import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logging.ts';
import type { Metrics } from '../metrics.ts';

/** What the access log may say of a request: never its text or its token. */
export interface RequestRecord {
  route?: string | undefined;
  member?: string | undefined;
  code?: string | undefined;
}

/**
 * Access log and request metrics once the request is over: route, status, time, member id,
 * error code. Answered requests log at debug (a line per request was ~5% of the CPU at info);
 * refused or failed ones at info.
 */
export function logWhenDone(req: IncomingMessage, res: ServerResponse, { metrics, logger }: { metrics: Metrics; logger: Logger }, record: () => RequestRecord): void {
  const started = performance.now();
  res.once('close', () => {
    const { route = 'unmatched', member, code } = record();
    const ms = Math.round(performance.now() - started);
    if (!res.writableFinished) {
      // The client went away before the answer was sent: its doing, not a BFF error.
      metrics.httpRequests.inc({ route, status: 'aborted' });
      logger.info({ method: req.method, route, ms, member }, 'request aborted by the client');
      return;
    }
    metrics.httpRequests.inc({ route, status: String(res.statusCode) });
    const level = res.statusCode < 400 ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    logger[level]({ method: req.method, route, status: res.statusCode, ms, member, code }, 'request');
  });
}
