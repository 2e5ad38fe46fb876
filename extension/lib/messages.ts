import * as z from 'zod/mini';

/**
 * Messages between the content script, the background and the extension pages. Every
 * receiver parses what it gets with these schemas and checks the sender (see isOwnSender).
 * zod/mini keeps the content script small.
 */

export const PRODUCT = z.enum(['detector', 'humanizer', 'plagiarism']);
export type ProductName = z.infer<typeof PRODUCT>;

export const EditorInfo = z.object({
  name: z.string().check(z.maxLength(40)),
  acceptIsOneStep: z.boolean(),
  acceptAll: z.enum(['one', 'each']),
});
export type EditorInfo = z.infer<typeof EditorInfo>;

/** Content → background: run one BFF operation for this tab. */
export const CheckRequest = z.object({
  type: z.literal('check'),
  product: PRODUCT,
  operationId: z.string().check(z.minLength(8), z.maxLength(128)),
  text: z.string(),
  words: z.number(),
  version: z.optional(z.enum(['v1', 'v2', 'v3'])),
  model: z.optional(z.enum(['cognia', 'lexi', 'cognia_v2', 'huma_v2'])),
  /** The editor the text came from and what its undo keeps of an accepted suggestion. */
  editor: z.optional(EditorInfo),
});
export type CheckRequest = z.infer<typeof CheckRequest>;

/** Background → content (and extension pages → content). */
export const ContentCommand = z.union([
  /** `targeted`: sent to this frame on purpose (context menu, side panel), so it acts without the focus. */
  z.object({ type: z.literal('run'), product: PRODUCT, targeted: z.optional(z.boolean()) }),
  z.object({ type: z.literal('reveal'), product: PRODUCT, index: z.number() }),
  /** Put an accepted (possibly edited) suggestion of the last rewrite into the editor. */
  z.object({ type: z.literal('apply'), index: z.number(), replacement: z.string() }),
  /** Accept all: the pending suggestions at once. */
  z.object({ type: z.literal('apply-all'), items: z.array(z.object({ index: z.number(), replacement: z.string() })) }),
  /** Put an accepted suggestion's original back, if the accepted text was not edited since. */
  z.object({ type: z.literal('undo'), index: z.number() }),
  z.object({ type: z.literal('ping') }),
]);
export type ContentCommand = z.infer<typeof ContentCommand>;

/** Content → background: which result items are still in the page's text after an edit. */
export const LiveItems = z.object({ type: z.literal('live'), product: PRODUCT, indices: z.array(z.number()) });

export const ToBackground = z.union([CheckRequest, LiveItems, z.object({ type: z.literal('open-panel') })]);
export type ToBackground = z.infer<typeof ToBackground>;

/** An error the UI shows: a BFF error code, or `bff_unreachable` / `not_configured` from the extension. */
export interface CheckError {
  code: string;
  message: string;
  status?: number;
  retryAfterSeconds?: number;
  remainingWords?: number;
  requiredWords?: number;
}

/** A suggestion of a rewrite, as the content script tracks it (offsets in the checked text). */
export interface SuggestionSpan {
  index: number;
  start: number;
  end: number;
}

export type CheckReply = { ok: true; response: unknown; suggestions?: SuggestionSpan[] } | { ok: false; error: CheckError };

/**
 * `applied`: read back in the editor. `withdrawn`: the sentence changed since the rewrite.
 * `refused`: the editor did not take the change; nothing changed and the sentence is selected.
 * `unexpected`: the editor changed the text differently and it could not be rolled back.
 */
export type ApplyOutcome = 'applied' | 'withdrawn' | 'no-rewrite' | 'refused' | 'unexpected';

interface SenderLike {
  id?: string;
}

/** True for messages from this extension (its pages, background or content scripts). */
export function isOwnSender(sender: SenderLike, runtimeId: string): boolean {
  return sender.id === runtimeId;
}
