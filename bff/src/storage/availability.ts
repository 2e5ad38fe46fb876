import { describeError, type Logger } from '../logging.ts';
import { LedgerUnavailableError, classifyLedgerError, type LedgerFault } from './faults.ts';
import type { Ledger } from './ledger.ts';

export interface LedgerMonitorOptions {
  logger: Logger;
  /** How often to probe the database while it is unavailable. */
  probeIntervalMs: number;
  /** Called once each time the ledger comes back (pending operations resume). */
  onRecovered: () => Promise<void> | void;
}

/**
 * Knows whether the ledger can be used. The first fault is logged with what is wrong; from
 * then on every ledger call fails at once with LedgerUnavailableError (answered 503
 * ledger_unavailable) while a probe (ledger.ping) runs on a timer; when the probe succeeds
 * the ledger is used again and `onRecovered` runs.
 */
export class LedgerMonitor {
  #fault: LedgerFault | undefined;
  #timer: NodeJS.Timeout | undefined;
  #probing = false;
  #stopped = false;

  constructor(
    private readonly ledger: Ledger,
    private readonly options: LedgerMonitorOptions,
  ) {}

  /** The current fault, or undefined while the ledger is available. */
  get fault(): LedgerFault | undefined {
    return this.#fault;
  }

  /** Records a failed call; returns the error to throw (LedgerUnavailableError for an availability fault). */
  failure(error: unknown): unknown {
    const fault = classifyLedgerError(error, this.ledger.sqliteFile);
    if (!fault) return error;
    if (!this.#fault || this.#fault.reason !== fault.reason) {
      this.options.logger.error({ reason: fault.reason, error: describeError(error) }, `ledger unavailable: ${fault.explanation}`);
    }
    this.#fault = fault;
    this.#scheduleProbe();
    return error instanceof LedgerUnavailableError ? error : new LedgerUnavailableError(fault, { cause: error });
  }

  /** For readiness: probes now unless a fault is already known. */
  async check(): Promise<LedgerFault | undefined> {
    if (this.#fault) return this.#fault;
    try {
      await this.ledger.ping();
      return undefined;
    } catch (error) {
      this.failure(error);
      return this.#fault ?? { reason: 'unavailable', explanation: 'the ledger did not answer' };
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #scheduleProbe(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setTimeout(() => void this.#probe(), this.options.probeIntervalMs);
    this.#timer.unref();
  }

  async #probe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      await this.ledger.ping();
      const was = this.#fault;
      this.#fault = undefined;
      this.#timer = undefined;
      this.options.logger.info({ reason: was?.reason }, 'ledger available again');
      await Promise.resolve(this.options.onRecovered()).catch((error: unknown) => {
        this.options.logger.error({ error: describeError(error) }, 'resuming pending operations after the ledger came back failed');
      });
    } catch (error) {
      this.#timer = undefined;
      this.failure(error);
      this.#scheduleProbe();
    } finally {
      this.#probing = false;
    }
  }
}

const UNGUARDED = new Set<string | symbol>(['ping', 'close', 'constructor']);

/**
 * The ledger as the rest of the BFF uses it: every call goes through the monitor, which turns
 * availability faults into LedgerUnavailableError and refuses calls at once while one lasts.
 */
export function guardLedger(ledger: Ledger, monitor: LedgerMonitor): Ledger {
  return new Proxy(ledger, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function' || UNGUARDED.has(property)) return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const known = monitor.fault;
        if (known) throw new LedgerUnavailableError(known);
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          throw monitor.failure(error);
        }
      };
    },
  });
}
