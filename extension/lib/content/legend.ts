import { SCORE_BANDS, bandRange } from '../verdict.ts';
import { AI_LEVELS, SOURCE_HIGHLIGHT } from './styles.ts';

/** What the highlight styles mean, as a list with a sample of each (card and toast). */
export function legendList(): HTMLUListElement {
  const list = document.createElement('ul');
  list.className = 'legend';
  list.setAttribute('aria-label', 'What the highlights mean');
  const item = (name: string, sample: string, text: string) => {
    const li = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch ${name}`;
    swatch.textContent = sample;
    li.append(swatch, text);
    list.append(li);
  };
  SCORE_BANDS.forEach((band, i) => item(AI_LEVELS[i]!.name, 'Text', `${band.label}: labelled AI, ${bandRange(band)}`));
  item(SOURCE_HIGHLIGHT.name, 'Text', 'Similar to a known source');
  return list;
}
