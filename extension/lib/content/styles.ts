/** Intensity buckets for AI highlights, by score. */
export const AI_LEVELS = [
  { name: 'redline-ai-1', below: 0.7, color: 'rgba(255, 153, 0, 0.22)' },
  { name: 'redline-ai-2', below: 0.85, color: 'rgba(255, 120, 0, 0.36)' },
  { name: 'redline-ai-3', below: Infinity, color: 'rgba(235, 80, 0, 0.5)' },
] as const;

export function aiLevel(score: number) {
  return AI_LEVELS.find((level) => score < level.below) ?? AI_LEVELS[AI_LEVELS.length - 1]!;
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
