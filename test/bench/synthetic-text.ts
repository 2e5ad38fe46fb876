/** Deterministic English-like text for benchmarks: a Zipf-distributed vocabulary of made-up words. */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FUNCTION_WORDS = 'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there one all we their has been would will more if no when what so out up into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(' ');
const SYLLABLES = 'ka lo mi ne ru ta ve si po da ri ko mu te la fi no ge ba zu'.split(' ');

export function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/** One sentence of 8–30 words: function words and Zipf-drawn content words. */
export function sentence(words: readonly string[], random: () => number): string {
  const length = 8 + Math.floor(random() * 23);
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    if (random() < 0.45) out.push(FUNCTION_WORDS[Math.floor(random() ** 2 * FUNCTION_WORDS.length)]!);
    else out.push(words[Math.floor(words.length * random() ** 3)]!);
  }
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}
