export * from './text.ts';
export * from './sentences.ts';
export * from './limits.ts';
export * from './idempotency.ts';
export * from './upstream/index.ts';
export * from './bff-api.ts';
