/**
 * Whether the text under the highlights is on a light or a dark page, so that highlight
 * colours keep the page's own text readable. Read from the page's colours, not assumed from
 * the system setting: most pages stay light whatever the system prefers.
 */

export type Scheme = 'light' | 'dark';
export type Rgba = readonly [number, number, number, number];

/** `rgb(…)`, `rgba(…)` (as getComputedStyle gives them) or `#rrggbb`; undefined for anything else. */
export function parseColor(css: string): Rgba | undefined {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css.trim());
  if (hex) return [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16), parseInt(hex[3]!, 16), 1];
  const rgb = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(css.trim());
  if (!rgb) return undefined;
  const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith('%') ? parseFloat(rgb[4]) / 100 : parseFloat(rgb[4]);
  return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), alpha];
}

/** A colour with alpha laid over an opaque one. */
export function composite(top: Rgba, bottom: Rgba): Rgba {
  const a = top[3];
  return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
}

/** WCAG 2 relative luminance of an opaque colour. */
export function luminance([r, g, b]: Rgba): number {
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG 2 contrast ratio of two opaque colours (1 to 21). */
export function contrast(a: Rgba, b: Rgba): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

/** Below this background luminance a page reads as dark (about #777). */
const DARK_BELOW = 0.18;

/**
 * The scheme of the page behind `element`: the first ancestor background that is mostly opaque
 * decides; with none (the page's canvas shows through) the text colour does, since a page with
 * light text and no background is dark in the browser's own dark canvas.
 */
export function pageScheme(element: Element): Scheme {
  for (let node: Element | null = element; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null)) {
    const background = parseColor(getComputedStyle(node).backgroundColor);
    if (background && background[3] >= 0.5) return luminance(background) < DARK_BELOW ? 'dark' : 'light';
  }
  const text = parseColor(getComputedStyle(element).color);
  return text && luminance(text) > 0.4 ? 'dark' : 'light';
}
