import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { detect, type DetectorScorer } from '../src/analysis/detector.ts';

/**
 * `npm run eval:human-prose [FOLDER]`: how often the offline detector flags prose that people
 * certainly wrote and that no training text resembles. By default the Vim user manual
 * (Debian's vim-runtime: /usr/share/vim/vim90/doc/usr_*.txt, written over two decades before
 * 2022): its paragraphs of plain prose (no code, tags or headings). Any folder of .txt files
 * can be given instead. Prints the share of sentences labelled AI and of paragraphs over 50%,
 * for the trained scorer and the hand-weighted one. Not run in CI (the folder is the machine's).
 */

const DEFAULT_FOLDER = '/usr/share/vim/vim90/doc';
const folder = process.argv[2] ?? DEFAULT_FOLDER;
if (!existsSync(folder)) {
  console.error(`eval:human-prose: ${folder} does not exist. Install Debian's vim-runtime, or give a folder of .txt files of human prose.`);
  process.exit(2);
}
const files = readdirSync(folder)
  .filter((file) => (folder === DEFAULT_FOLDER ? /^usr_\d+\.txt$/.test(file) : file.endsWith('.txt')))
  .sort();

/** Paragraphs of plain prose: no indented (code) lines, no tags, no headings, whole sentences. */
function proseParagraphs(text: string): string[] {
  const paragraphs: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    if (lines.some((line) => /^\s{2,}|\t|[*|]|~$|^=+$/.test(line))) continue;
    const paragraph = lines.join(' ').replace(/\s+/g, ' ').trim();
    if (paragraph.length >= 200 && /^[A-Z]/.test(paragraph) && /[.!?]$/.test(paragraph)) paragraphs.push(paragraph);
  }
  return paragraphs;
}

const paragraphs = files.flatMap((file) => proseParagraphs(readFileSync(path.join(folder, file), 'utf8')));
console.log(`${paragraphs.length} paragraphs of human prose from ${files.length} files in ${folder}\n`);
console.log('| scorer | sentences | labelled AI | paragraphs over 50% AI |');
console.log('|---|---|---|---|');
for (const scorer of ['trained', 'stylistic'] as const satisfies readonly DetectorScorer[]) {
  let sentences = 0;
  let labelled = 0;
  let over = 0;
  for (const paragraph of paragraphs) {
    const { chunks, ai_percentage } = detect(paragraph, 'v3', scorer);
    sentences += chunks.length;
    labelled += chunks.filter((chunk) => chunk.type === 'AI').length;
    if (ai_percentage > 50) over++;
  }
  const share = (count: number, of: number) => `${((100 * count) / of).toFixed(1)}%`;
  console.log(`| ${scorer === 'trained' ? 'trained (v3, shipped)' : 'hand-weighted (v1/v2, the double)'} | ${sentences} | ${share(labelled, sentences)} | ${share(over, paragraphs.length)} |`);
}
