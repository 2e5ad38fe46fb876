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
  withTypingBefore: z.optional(z.boolean()),
  acceptAll: z.enum(['one', 'grouped', 'each', 'each-unless-grouped']),
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
  /**
   * What was checked: a page's main text (`page`, with its title), or one sentence from a card
   * (`sentence`: answered, but not made the tab's result). Absent: the editor, field or selection.
   */
  scope: z.optional(z.enum(['page', 'sentence'])),
  title: z.optional(z.string().check(z.maxLength(300))),
});
export type CheckRequest = z.infer<typeof CheckRequest>;

/** Background → content (and extension pages → content). */
export const ContentCommand = z.union([
  /** `targeted`: sent to this frame on purpose (context menu, side panel), so it acts without the focus. */
  z.object({ type: z.literal('run'), product: PRODUCT, targeted: z.optional(z.boolean()) }),
  z.object({ type: z.literal('reveal'), product: PRODUCT, index: z.number() }),
  /** Put an accepted (possibly edited) suggestion of the last rewrite into the editor. */
  /** `deadline` (epoch ms): when the panel stops waiting; a page that gets the command later (a frozen tab) changes nothing. */
  z.object({ type: z.literal('apply'), index: z.number(), replacement: z.string(), deadline: z.optional(z.number()) }),
  /** Accept all: the pending suggestions at once. */
  z.object({ type: z.literal('apply-all'), items: z.array(z.object({ index: z.number(), replacement: z.string() })), deadline: z.optional(z.number()) }),
  /** Put an accepted suggestion's original back, if the accepted text was not edited since. */
  z.object({ type: z.literal('undo'), index: z.number() }),
  z.object({ type: z.literal('ping') }),
  /** Check this page: the main text of the page in the top frame (Readability). */
  z.object({ type: z.literal('check-page') }),
]);
export type ContentCommand = z.infer<typeof ContentCommand>;

/** Content → background: which result items are still in the page's text after an edit. */
export const LiveItems = z.object({
  type: z.literal('live'),
  product: PRODUCT,
  indices: z.array(z.number()),
  /** Accepted suggestions the writer took back with the editor's own undo. */
  undone: z.optional(z.array(z.number())),
});

/** Content → background: result items the writer chose to ignore in this document. */
export const IgnoredItems = z.object({ type: z.literal('ignored'), product: PRODUCT, indices: z.array(z.number()) });

/** Content → background: open the side panel, at one item when `focus` says which. */
export const OpenPanel = z.object({ type: z.literal('open-panel'), focus: z.optional(z.object({ product: PRODUCT, index: z.number() })) });

/** Extension page (popup) → background: check the main text of the page in this tab. */
export const CheckPage = z.object({ type: z.literal('check-page'), tabId: z.number() });

export const ToBackground = z.union([CheckRequest, LiveItems, IgnoredItems, OpenPanel, CheckPage]);
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

/**
 * `operationId`: the id the check was sent under, which is not the page's own when it repeated an
 * unfinished check (unfinished-checks.ts): the page asks under it from then on.
 */
export type CheckReply = ({ ok: true; response: unknown; suggestions?: SuggestionSpan[] } | { ok: false; error: CheckError }) & { operationId?: string };

/**
 * `applied`: read back in the editor. `withdrawn`: the sentence changed since the rewrite.
 * `refused`: the editor did not take the change; nothing changed and the sentence is selected.
 * `reverted`: the editor turned the suggestion into something else; that was rolled back, the text is as before.
 * `timeout`: the editor did not settle in time (a background tab draws nothing); the text is as before.
 * `unexpected`: the editor changed the text differently and it could not be rolled back.
 * `interrupted`: the writer typed (or clicked) in the page meanwhile; Redline stopped, nothing rolled back, the sentence as it was.
 * `overlapped`: as `interrupted`, but the writer's input met the sentence; it is left as it is, to be checked.
 * `embedded`: nothing tried: the words to replace hold an image, an embed or a mention that the rewrite would remove.
 */
export type ApplyOutcome = 'applied' | 'withdrawn' | 'no-rewrite' | 'refused' | 'locked' | 'reverted' | 'timeout' | 'unexpected' | 'interrupted' | 'overlapped' | 'embedded';

interface SenderLike {
  id?: string;
}

/** True for messages from this extension (its pages, background or content scripts). */
export function isOwnSender(sender: SenderLike, runtimeId: string): boolean {
  return sender.id === runtimeId;
}
