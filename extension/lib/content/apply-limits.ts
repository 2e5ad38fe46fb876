/** Time limits of an apply (lib/content/apply.ts), in the content script so that callers can size them without loading it. */
export interface ApplyLimits {
  /** The whole ladder, rollbacks included, ends by then. */
  budgetMs: number;
  /** How long the page may take to draw a frame before nothing is tried (a hidden tab never does). */
  frameMs: number;
}

// A background tab in Firefox still draws about once a second; in Chromium it does not draw.
export const APPLY_LIMITS: ApplyLimits = { budgetMs: 6000, frameMs: 2500 };
