import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics. Labels carry products, routes, statuses and reasons: never keys, tokens or text. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'bff_http_requests_total',
      help: 'HTTP requests answered by the BFF',
      labelNames: ['route', 'status'] as const,
      registers: [registry],
    }),
    upstreamLatency: new Histogram({
      name: 'bff_upstream_request_duration_seconds',
      help: 'Duration of single upstream attempts',
      labelNames: ['product', 'outcome'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    upstreamRetries: new Counter({
      name: 'bff_upstream_retries_total',
      help: 'Upstream attempts repeated after a fault, by reason',
      labelNames: ['product', 'reason'] as const,
      registers: [registry],
    }),
    wordsCharged: new Counter({
      name: 'bff_words_charged_total',
      help: 'Words charged, from words_processed',
      labelNames: ['product', 'source'] as const,
      registers: [registry],
    }),
    implausibleCharges: new Counter({
      name: 'bff_upstream_implausible_charges_total',
      help: 'Upstream answers whose words_processed exceeds the characters sent (recorded as charged, and logged)',
      labelNames: ['product'] as const,
      registers: [registry],
    }),
    rateLimitStoreErrors: new Counter({
      name: 'bff_rate_limit_store_errors_total',
      help: 'Requests counted per instance because the shared rate-limit store (Redis) did not answer',
      registers: [registry],
    }),
    operations: new Counter({
      name: 'bff_operations_total',
      help: 'Operations by how they ended',
      labelNames: ['product', 'outcome'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Operations held pending (ledger.ts, HeldOperation), read from the ledger when scraped: every
 * instance reports the whole ledger's, so alert on max(), not sum().
 */
export function registerHeldOperations(metrics: Metrics, held: () => Promise<{ product: string; code: string }[]>): void {
  new Gauge({
    name: 'bff_operations_held_pending',
    help: 'Operations held pending because the upstream refused the key or account (or the address is wrong) after an attempt that may have been charged; each needs the key or UPSTREAM_BASE_URL fixed',
    labelNames: ['product', 'code'] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const { product, code } of await held().catch(() => [])) this.inc({ product, code });
    },
  });
}
