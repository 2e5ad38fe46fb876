/**
 * A long, deterministic document for the typing benchmark: paragraphs of five sentences,
 * every third sentence written in the stock style the detector labels AI, the others in a
 * plainly human voice, each sentence different from the others.
 */
const ORGS = ['organizations', 'businesses', 'educators', 'stakeholders', 'communities', 'institutions', 'researchers', 'leaders', 'teams', 'governments', 'platforms', 'developers', 'policymakers'];
const TOPICS = ['digital transformation', 'sustainable innovation', 'technological paradigms', 'collaborative ecosystems', 'data-driven strategies', 'cutting-edge solutions', 'holistic frameworks', 'transformative experiences', 'comprehensive methodologies', 'innovative approaches', 'interconnected landscapes'];
const AI_TEMPLATES = [
  (org: string, topic: string) => `Moreover, ${org} must navigate the complexities of ${topic}.`,
  (org: string, topic: string) => `Ultimately, ${topic} plays a crucial role for ${org}.`,
  (org: string, topic: string) => `Furthermore, leveraging ${topic} empowers ${org} to thrive.`,
  (org: string, topic: string) => `Notably, ${org} increasingly harness ${topic} to foster innovation.`,
  (org: string, topic: string) => `Additionally, ${topic} underscores the pivotal role of ${org}.`,
];
/** How the stock-style sentences start (the ones a rule-based scorer labels AI). */
export const STOCK_OPENERS = /^(?:Moreover|Ultimately|Furthermore|Notably|Additionally),/;
const PEOPLE = ['my sister', 'my neighbour', 'our dog', 'my friend Sam', 'the kid next door', 'my uncle', 'grandma', 'my roommate', 'the mailman', 'my boss', 'a guy at the bus stop'];
const THINGS = ['the old bike', 'a burnt pizza', 'the broken fence', 'a muddy boot', 'the leaky tap', 'my phone charger', 'the garden hose', 'a cheap kettle', 'the car keys', 'the spare blanket', 'a paper map', 'my lunch box'];
const HUMAN_TEMPLATES = [
  (person: string, thing: string) => `I found ${thing} and ${person} laughed.`,
  (person: string, thing: string) => `Yesterday ${person} borrowed ${thing}, honestly.`,
  (person: string, thing: string) => `We fixed ${thing} while ${person} watched.`,
  (person: string, thing: string) => `I'm sure ${person} hid ${thing} again, lol.`,
  (person: string, thing: string) => `Did ${person} ever mention ${thing}? I can't stop laughing.`,
  (person: string, thing: string) => `Okay so ${person} dropped ${thing} in the pond.`,
];

function sentence(index: number): string {
  if (index % 3 === 1) {
    const n = Math.floor(index / 3);
    return AI_TEMPLATES[n % AI_TEMPLATES.length]!(ORGS[Math.floor(n / AI_TEMPLATES.length) % ORGS.length]!, TOPICS[Math.floor(n / (AI_TEMPLATES.length * ORGS.length)) % TOPICS.length]!);
  }
  const n = index - Math.ceil(index / 3);
  return HUMAN_TEMPLATES[n % HUMAN_TEMPLATES.length]!(PEOPLE[Math.floor(n / HUMAN_TEMPLATES.length) % PEOPLE.length]!, THINGS[Math.floor(n / (HUMAN_TEMPLATES.length * PEOPLE.length)) % THINGS.length]!);
}

/** Paragraphs (joined by a blank line in a textarea, one <p> each in an editor) of about `words` words. */
export function benchDocument(words: number): string[] {
  const paragraphs: string[] = [];
  let count = 0;
  for (let index = 0; count < words; ) {
    const sentences: string[] = [];
    for (let i = 0; i < 5 && count < words; i++, index++) {
      const next = sentence(index);
      sentences.push(next);
      count += next.split(/\s+/).length;
    }
    paragraphs.push(sentences.join(' '));
  }
  return paragraphs;
}
