import { SCORE_BANDS, scoreBand, type ScoreBand } from '../verdict.ts';
import type { Scheme } from './theme.ts';

/** Highlight names for AI sentences, one per score band. */
export const AI_LEVELS = SCORE_BANDS.map((band) => ({ name: `redline-${band.id}`, band }));

const LEVEL_BY_BAND = new Map<ScoreBand, (typeof AI_LEVELS)[number]>(AI_LEVELS.map((level) => [level.band, level]));

export function aiLevel(score: number) {
  return LEVEL_BY_BAND.get(scoreBand(score))!;
}

export const SOURCE_HIGHLIGHT = {
  name: 'redline-source',
  light: { background: 'rgba(60, 120, 255, 0.22)', underline: '#2452c8' },
  dark: { background: 'rgba(110, 160, 255, 0.26)', underline: '#8fb4ff' },
} as const;

/** The declarations that draw one band (or source matches) on a page of the given scheme. */
export function bandDeclarations(band: ScoreBand, scheme: Scheme): string {
  return `background-color: ${band[scheme]}; text-decoration: underline ${band.underline.style} ${band.underline[scheme]}; text-decoration-thickness: 2px;`;
}

export function sourceDeclarations(scheme: Scheme): string {
  const colours = SOURCE_HIGHLIGHT[scheme];
  return `background-color: ${colours.background}; text-decoration: underline dotted ${colours.underline}; text-decoration-thickness: 2px;`;
}

const installed = new WeakMap<Document | ShadowRoot, { sheet: CSSStyleSheet; scheme: Scheme }>();

/**
 * Highlight styles go into an adopted style sheet: the page's DOM is not touched. An editor in
 * a shadow root needs them in that root, since document styles do not reach into it. Colours
 * follow the scheme of the page under the text (theme.ts).
 */
export function installHighlightStyles(root: Document | ShadowRoot, scheme: Scheme): void {
  const current = installed.get(root);
  if (current?.scheme === scheme) return;
  const sheet = current?.sheet ?? new CSSStyleSheet();
  const rules = AI_LEVELS.map((level) => `::highlight(${level.name}) { ${bandDeclarations(level.band, scheme)} }`);
  rules.push(`::highlight(${SOURCE_HIGHLIGHT.name}) { ${sourceDeclarations(scheme)} }`);
  sheet.replaceSync(rules.join('\n'));
  if (!current) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  installed.set(root, { sheet, scheme });
}

/**
 * Shared look of the card, toast and overlay hosts (inside their shadow roots). They are the
 * extension's own UI, so they follow the system's colour scheme; motion is left out when the
 * system asks for reduced motion.
 */
export const UI_CSS = `
:host { all: initial; }
.card, .toast { --fg: #1d1d1f; --muted: #52525c; --bg: #fff; --line: #c4c4cc; --button: #f3f3f6; --accent: #1d4ed8; --accent-fg: #fff; --del: #9b1c1c; --ins: #166534;
  font: 13px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); border: 1px solid var(--line);
  border-radius: 8px; box-shadow: 0 6px 24px rgba(0,0,0,.18); padding: 10px 12px; max-width: 340px; box-sizing: border-box; }
@media (prefers-color-scheme: dark) {
  .card, .toast { --fg: #f2f2f5; --muted: #c0c0ca; --bg: #1f1f24; --line: #4a4a54; --button: #2e2e36; --accent: #3d6ef5; --accent-fg: #fff; --del: #ff9d9d; --ins: #8be3a6; }
}
.card { position: fixed; z-index: 2147483647; width: 340px; overflow-y: auto; transition: opacity .12s ease-out, transform .12s ease-out; }
.card[hidden] { display: none; }
.card.entering { opacity: 0; transform: translateY(var(--enter-from, 4px)); }
.toast { position: fixed; right: 16px; bottom: 16px; z-index: 2147483647; animation: rise .15s ease-out; }
@keyframes rise { from { opacity: 0; transform: translateY(6px); } }
@media (prefers-reduced-motion: reduce) { .card, .toast { transition: none; animation: none; } }
.label { font-weight: 600; display: flex; align-items: center; gap: 6px; }
.note { color: var(--muted); font-size: 12px; margin-top: 4px; }
.message + .detail { margin-top: 2px; }
.toast .error { color: var(--del); font-weight: 600; }
.actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
button { font: inherit; color: var(--fg); margin: 0; padding: 4px 10px; border-radius: 6px; border: 1px solid var(--line); background: var(--button); cursor: pointer; }
.toast button { margin: 8px 8px 0 0; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
button.close { position: absolute; top: 4px; right: 4px; border: none; background: transparent; padding: 2px 8px; font-size: 16px; line-height: 1; }
.legend { list-style: none; margin: 8px 0 0; padding: 0; }
.legend li { display: flex; align-items: center; gap: 8px; margin-top: 4px; }
.swatch { display: inline-block; padding: 0 4px; border-radius: 2px; color: var(--fg); font-weight: 400; }
${AI_LEVELS.map((level) => `.swatch.${level.name} { ${bandDeclarations(level.band, 'light')} }`).join('\n')}
.swatch.${SOURCE_HIGHLIGHT.name} { ${sourceDeclarations('light')} }
@media (prefers-color-scheme: dark) {
${AI_LEVELS.map((level) => `  .swatch.${level.name} { ${bandDeclarations(level.band, 'dark')} }`).join('\n')}
  .swatch.${SOURCE_HIGHLIGHT.name} { ${sourceDeclarations('dark')} }
}
.suggestion { margin-top: 8px; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; }
.suggestion del { color: var(--del); }
.suggestion ins { color: var(--ins); text-decoration: underline; }
.status { margin-top: 8px; }
.hint { color: var(--muted); font-size: 11px; margin-top: 6px; }
`;
