import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { HttpError, secondsOf } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { Metrics } from '../metrics.ts';

export interface RateLimitOptions {
  requests: number;
  windowMs: number;
  /** Shared counters for several instances; per-instance counters when absent. */
  redisUrl?: string;
  /** What is counted (its keys' prefix, in Redis too): limits of different things never share a count. */
  name?: string;
  logger: Logger;
  metrics: Metrics;
}

/** Requests per key (a member; for console sign-in refusals, a client address) per fixed window. */
export interface RateLimiter {
  /**
   * Counts one request under the key: 0 when it may go on, else the seconds to wait.
   * `requests`: a limit of the key's own (a member's, set in the console; null or absent: the default).
   */
  take(key: string, requests?: number | null): Promise<number>;
  /** Resolves once the shared store answers, or after a short wait if it does not (startup). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Counts one request (a /v1 call or an MCP tool call) of the member; refuses it over the limit. */
export async function takeRequest(limiter: RateLimiter, member: { id: string; rateLimit: number | null }): Promise<void> {
  const retryAfterSeconds = await limiter.take(member.id, member.rateLimit);
  if (retryAfterSeconds > 0) {
    throw HttpError.of(429, 'rate_limited', `Too many requests from your token. Try again in ${secondsOf(retryAfterSeconds)}.`, { retryAfterSeconds });
  }
}

const STORE_WARNING_INTERVAL_MS = 10_000;
const STARTUP_WAIT_MS = 2_000;

/**
 * Request limits per key (per member; `name` keeps other counts apart). With Redis every
 * instance counts in the same atomic counter (rate-limiter-flexible's Lua INCR + expiry), so
 * the limit holds across instances. If
 * Redis cannot answer, requests are not refused for it: each instance falls back to its
 * own in-memory counter with the same limit, logs a warning (at most every 10 s) and counts
 * the fallback in `bff_rate_limit_store_errors_total`. A limit that briefly holds per
 * instance is a smaller harm than an outage of every member's checks.
 */
export async function createRateLimiter({ requests, windowMs, redisUrl, name = 'member', logger, metrics }: RateLimitOptions): Promise<RateLimiter> {
  const duration = Math.max(1, Math.round(windowMs / 1000));
  // Loaded only when used: a BFF without Redis would carry the client's memory for nothing.
  const redis = redisUrl
    ? new (await import('ioredis')).Redis(redisUrl, {
        // Fail fast rather than queue when Redis is away: the request falls back to local counting.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 250,
        connectTimeout: 2_000,
        lazyConnect: false,
      })
    : undefined;
  let lastWarning = 0;
  const warn = (reason: string) => {
    metrics.rateLimitStoreErrors.inc();
    if (Date.now() - lastWarning < STORE_WARNING_INTERVAL_MS) return;
    lastWarning = Date.now();
    logger.warn({ reason }, 'rate-limit store (Redis) unavailable: counting per instance until it is back');
  };
  redis?.on('error', (error: Error) => warn((error as NodeJS.ErrnoException).code ?? error.name));
  /**
   * Counters per limit: the default, and each limit set for a member in the console (a few
   * distinct values). A member's own limit counts under a key prefix of its own, so changing
   * it starts a fresh window rather than mixing counts of two limits.
   */
  const byLimit = new Map<number, { local: RateLimiterAbstract; shared: RateLimiterAbstract | undefined }>();
  const limitersFor = (points: number) => {
    let limiters = byLimit.get(points);
    if (!limiters) {
      const keyPrefix = points === requests ? '' : `:${points}`;
      limiters = {
        local: new RateLimiterMemory({ points, duration, keyPrefix: `${name}${keyPrefix}` }),
        shared: redis
          ? new RateLimiterRedis({
              storeClient: redis,
              points,
              duration,
              keyPrefix: `redline:${name}-rate${keyPrefix}`,
              rejectIfRedisNotReady: true,
              // Once a member is over the limit, this instance refuses it until the window ends without asking Redis.
              inMemoryBlockOnConsumed: points + 1,
            })
          : undefined,
      };
      byLimit.set(points, limiters);
    }
    return limiters;
  };

  const secondsToWait = (rejection: RateLimiterRes) => Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
  const consume = async (limiter: RateLimiterAbstract, key: string) => {
    try {
      await limiter.consume(key);
      return 0;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return secondsToWait(rejection);
      throw rejection;
    }
  };

  return {
    async take(key, own) {
      const { local, shared } = limitersFor(own ?? requests);
      if (!shared) return consume(local, key);
      try {
        return await consume(shared, key);
      } catch (error) {
        warn((error as Error).message);
        return consume(local, key);
      }
    },
    ready() {
      if (!redis || redis.status === 'ready') return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, STARTUP_WAIT_MS);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
