import { z } from 'zod';
import { PRODUCTS } from './products.ts';

// Error bodies. Only two are specified upstream (the quota errors); the rest are this
// project's choice, written down in shared/CONTRACT.md. Clients must check the status first
// and read bodies leniently: `parseUpstreamError` never throws.

/** 403, no active subscription for the product: `error_code` is the string "1002". */
export const NO_SUBSCRIPTION_ERROR_CODE = '1002';

export const NoSubscriptionBody = z.object({
  error_code: z.union([z.string(), z.number()]).transform(String).pipe(z.literal(NO_SUBSCRIPTION_ERROR_CODE)),
  detail: z.string().optional(),
});

/**
 * 400, not enough words: the legacy `error` field. The remaining-limit field names are not
 * shown upstream; `remaining_words` and `required_words` are this project's choice, and other
 * names that say "remaining"/"left" or "required"/"needed" are read too. A 400 with the legacy
 * field and without `detail` is a quota refusal whether or not the counts can be read.
 */
export const QuotaExceededBody = z.object({
  error: z.string(),
  remaining_words: z.number().int().nonnegative().optional(),
  required_words: z.number().int().nonnegative().optional(),
  product: z.enum(PRODUCTS).optional(),
});
export type QuotaExceededBody = z.infer<typeof QuotaExceededBody>;

const REMAINING_FIELD = /remain|left|available|balance/i;
const REQUIRED_FIELD = /requir|need/i;

/** The first whole, non-negative number in a field whose name matches. */
function countIn(body: Record<string, unknown>, name: RegExp): number | undefined {
  for (const [field, value] of Object.entries(body)) {
    if (name.test(field) && typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  }
  return undefined;
}

/** Every other error: `{ "detail": "..." }`, plus `fields` on a 400 for an invalid request. */
export const DetailBody = z.object({
  detail: z.string(),
  fields: z.record(z.string(), z.string()).optional(),
});
export type DetailBody = z.infer<typeof DetailBody>;

export type UpstreamError =
  | { kind: 'no_subscription'; message: string }
  | { kind: 'quota_exceeded'; message: string; remainingWords?: number; requiredWords?: number }
  | { kind: 'other'; message: string; fields?: Record<string, string> };

/** Reads an upstream error body of any shape into one of the known kinds. */
export function parseUpstreamError(status: number, body: unknown): UpstreamError {
  if (status === 403) {
    const parsed = NoSubscriptionBody.safeParse(body);
    if (parsed.success) return { kind: 'no_subscription', message: parsed.data.detail ?? 'No active subscription' };
  }
  if (status === 400) {
    const parsed = QuotaExceededBody.safeParse(body);
    if (parsed.success && (body as { detail?: unknown }).detail === undefined) {
      const fields = body as Record<string, unknown>;
      return {
        kind: 'quota_exceeded',
        message: parsed.data.error,
        remainingWords: parsed.data.remaining_words ?? countIn(fields, REMAINING_FIELD),
        requiredWords: parsed.data.required_words ?? countIn(fields, REQUIRED_FIELD),
      };
    }
  }
  const detail = DetailBody.safeParse(body);
  if (detail.success) return { kind: 'other', message: detail.data.detail, fields: detail.data.fields };
  return { kind: 'other', message: messageOf(body) ?? `upstream answered HTTP ${status}` };
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 300);
  if (body && typeof body === 'object') {
    for (const field of ['detail', 'error', 'message']) {
      const value = (body as Record<string, unknown>)[field];
      if (typeof value === 'string' && value.trim()) return value;
    }
  }
  return undefined;
}
