import { describe, expect, it } from 'vitest';
import { SCORE_BANDS } from '../../extension/lib/verdict.ts';
import { composite, contrast, parseColor, type Rgba } from '../../extension/lib/content/theme.ts';
import { SOURCE_HIGHLIGHT } from '../../extension/lib/content/styles.ts';

const colour = (css: string): Rgba => parseColor(css)!;

/** Pages as they commonly are: dark text on white or off-white, light text on near-black or dark grey. */
const PAGES = {
  light: { backgrounds: ['#ffffff', '#f7f7f7', '#fffbea'], texts: ['#000000', '#1d1d1f', '#333333', '#444444'] },
  dark: { backgrounds: ['#000000', '#121212', '#1e1e1e', '#202124'], texts: ['#ffffff', '#e6e6e6', '#d4d4d4', '#c8c8c8'] },
} as const;

describe('highlight colours meet contrast (WCAG 2)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`${scheme} pages: text stays at 4.5:1 over every tint, and each underline is 3:1 against the page`, () => {
      const tints = [...SCORE_BANDS.map((band) => band[scheme]), SOURCE_HIGHLIGHT[scheme].background];
      const underlines = [...SCORE_BANDS.map((band) => band.underline[scheme]), SOURCE_HIGHLIGHT[scheme].underline];
      for (const background of PAGES[scheme].backgrounds) {
        for (const tint of tints) {
          for (const text of PAGES[scheme].texts) {
            expect(contrast(colour(text), composite(colour(tint), colour(background))), `${text} on ${tint} over ${background}`).toBeGreaterThanOrEqual(4.5);
          }
        }
        for (const underline of underlines) {
          expect(contrast(colour(underline), colour(background)), `${underline} on ${background}`).toBeGreaterThanOrEqual(3);
        }
      }
    });
  }

  it('bands differ by more than colour: each has its own underline style', () => {
    expect(new Set(SCORE_BANDS.map((band) => band.underline.style)).size).toBe(SCORE_BANDS.length);
  });

  it('reads the colours getComputedStyle gives', () => {
    expect(parseColor('rgb(18, 18, 18)')).toEqual([18, 18, 18, 1]);
    expect(parseColor('rgba(255, 120, 0, 0.32)')).toEqual([255, 120, 0, 0.32]);
    expect(parseColor('#a15c00')).toEqual([161, 92, 0, 1]);
    expect(parseColor('color(srgb 1 0 0)')).toBeUndefined();
    expect(contrast(colour('#000000'), colour('#ffffff'))).toBeCloseTo(21, 5);
  });
});
