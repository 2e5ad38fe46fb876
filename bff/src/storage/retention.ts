import type { Logger } from '../logging.ts';
import { describeError } from '../logging.ts';
import type { Ledger } from './ledger.ts';

export interface RetentionOptions {
  ledger: Ledger;
  logger: Logger;
  retentionHours: number;
  intervalMs: number;
  /** The clock; injected by tests. */
  now: () => number;
}

/** How long what an ended sign-in leaves (OAuth grants, codes and tokens; console sessions and links) is kept. */
export const ENDED_SIGN_INS_KEPT_DAYS = 30;

/**
 * The retention schedule: every interval, settled operations older than the retention period
 * are reduced to their metadata (ledger.purgeSettled), and sign-ins that ended more than
 * ENDED_SIGN_INS_KEPT_DAYS ago are deleted (the console's audit log keeps their story), grants
 * first: a used sign-in link goes with the grant it opened, not before. Runs
 * once at start, then on a timer that does not keep the process alive; a run never overlaps
 * the previous one.
 */
export function scheduleRetention({ ledger, logger, retentionHours, intervalMs, now }: RetentionOptions): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const purge = async () => {
    try {
      const purged = await ledger.purgeSettled(new Date(now() - retentionHours * 3_600_000));
      if (purged > 0) logger.info({ purged, retentionHours }, 'results past the retention period deleted');
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'retention purge failed; will try again');
    }
    try {
      const cutoff = now() - ENDED_SIGN_INS_KEPT_DAYS * 86_400_000;
      const deleted = (await (await ledger.oauthStore()).purgeEnded(cutoff)) + (await (await ledger.consoleStore()).purgeEnded(cutoff));
      if (deleted > 0) logger.info({ deleted, keptDays: ENDED_SIGN_INS_KEPT_DAYS }, 'records of ended sign-ins deleted');
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'deleting records of ended sign-ins failed; will try again');
    }
  };
  const tick = () => {
    if (stopped) return;
    running = running.then(purge);
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
