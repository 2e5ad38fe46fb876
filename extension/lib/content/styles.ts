import { SCORE_BANDS, scoreBand, type ScoreBand } from '../verdict.ts';

/** Highlight names and colours for AI sentences, one per score band. */
export const AI_LEVELS = SCORE_BANDS.map((band) => ({ name: `redline-${band.id}`, color: band.light, band }));

const LEVEL_BY_BAND = new Map<ScoreBand, (typeof AI_LEVELS)[number]>(AI_LEVELS.map((level) => [level.band, level]));

export function aiLevel(score: number) {
  return LEVEL_BY_BAND.get(scoreBand(score))!;
}

export const SOURCE_HIGHLIGHT = { name: 'redline-source', color: 'rgba(60, 120, 255, 0.28)' } as const;

const installed = new WeakSet<Document | ShadowRoot>();

/**
 * Highlight styles go into an adopted style sheet: the page's DOM is not touched. An editor in
 * a shadow root needs them in that root, since document styles do not reach into it.
 */
export function installHighlightStyles(root: Document | ShadowRoot = document): void {
  if (installed.has(root)) return;
  installed.add(root);
  const sheet = new CSSStyleSheet();
  const rules = AI_LEVELS.map((level) => `::highlight(${level.name}) { background-color: ${level.color}; }`);
  rules.push(`::highlight(${SOURCE_HIGHLIGHT.name}) { background-color: ${SOURCE_HIGHLIGHT.color}; text-decoration: underline dotted rgb(40, 90, 220); }`);
  sheet.replaceSync(rules.join('\n'));
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

/** Shared look of the card, toast and overlay hosts (inside their shadow roots). */
export const UI_CSS = `
:host { all: initial; }
.card, .toast { font: 13px/1.4 system-ui, sans-serif; color: #1d1d1f; background: #fff; border: 1px solid #d0d0d7;
  border-radius: 8px; box-shadow: 0 6px 24px rgba(0,0,0,.16); padding: 10px 12px; max-width: 320px; }
.card { position: fixed; z-index: 2147483647; pointer-events: none; }
.card .label { font-weight: 600; }
.card .note, .toast .note { color: #55555f; font-size: 12px; margin-top: 4px; }
.toast { position: fixed; right: 16px; bottom: 16px; z-index: 2147483647; }
.toast button { font: inherit; margin: 8px 8px 0 0; padding: 4px 10px; border-radius: 6px; border: 1px solid #b5b5c0; background: #f5f5f7; cursor: pointer; }
.toast button.primary { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
.toast .error { color: #a11; font-weight: 600; }
`;
