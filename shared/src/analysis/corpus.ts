/** A source document the plagiarism checker compares against. */
export interface SourceDocument {
  link: string;
  text: string;
}

/**
 * The built-in source corpus: short, original encyclopaedia-style passages at example
 * addresses. The double checks against it; the BFF's offline mode uses a folder instead.
 */
export const BUILT_IN_CORPUS: readonly SourceDocument[] = [
  {
    link: 'https://encyclopedia.example.org/water-cycle',
    text:
      'The water cycle describes how water evaporates from the surface of the earth, rises into the atmosphere, cools and condenses into clouds, and falls again as precipitation. ' +
      'Most evaporation happens over the oceans, which hold about ninety-seven percent of the water on the planet. ' +
      'Water that falls on land collects in rivers and lakes, soaks into the soil, or is taken up by plants. ' +
      'Groundwater can stay underground for thousands of years before it returns to the surface.',
  },
  {
    link: 'https://encyclopedia.example.org/photosynthesis',
    text:
      'Photosynthesis is the process by which green plants use sunlight to synthesise food from carbon dioxide and water. ' +
      'The process takes place mainly in the chloroplasts of leaf cells, which contain the pigment chlorophyll. ' +
      'Oxygen is released as a by-product of photosynthesis and is essential for most life on earth. ' +
      'The light reactions capture energy, while the Calvin cycle uses that energy to build sugars.',
  },
  {
    link: 'https://history.example.com/printing-press',
    text:
      'Johannes Gutenberg introduced movable type printing to Europe around the year 1440. ' +
      'The printing press made books far cheaper to produce and helped spread literacy across the continent. ' +
      'Within a few decades, printing workshops had opened in more than two hundred European cities. ' +
      'Historians often link the spread of printed books to the Reformation and the Scientific Revolution.',
  },
  {
    link: 'https://science.example.net/plate-tectonics',
    text:
      'Plate tectonics is the theory that the outer shell of the earth is divided into large plates that move slowly over the mantle. ' +
      'Earthquakes and volcanoes occur most often along the boundaries between these plates. ' +
      'Where two plates collide, mountain ranges such as the Himalayas can form over millions of years. ' +
      'The theory was widely accepted in the 1960s after studies of the ocean floor.',
  },
  {
    link: 'https://guides.example.com/remote-work',
    text:
      'Remote work allows employees to do their jobs from home or from any location outside a central office. ' +
      'Many companies adopted remote work on a large scale during the pandemic in 2020. ' +
      'Supporters say it saves commuting time and gives people more flexibility in their day. ' +
      'Critics argue that it can weaken team culture and make collaboration harder.',
  },
];
