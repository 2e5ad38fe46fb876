import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HUMANIZER_MODELS, type HumanizerModel } from '@redline/shared';
import { humanize, humanizeWithOutcome } from '../../shared/src/analysis/humanizer.ts';
import { grammarProblems, introducedProblems, protectedTextProblems } from '../../shared/src/analysis/rewrite/grammar-guard.ts';
import { findProtectedSpans } from '../../shared/src/analysis/protected-spans.ts';

// Rewrites seen from the earlier rule-based humanizer (issue #15), each with its original.
const BAD_REWRITES = [
  { original: 'Technology can significantly improve our lives.', bad: 'Technology can a lot improve our lives.', problem: 'modal-without-verb' },
  { original: 'The platform ensures seamless integration.', bad: 'The platform makes sure smooth integration.', problem: 'make-sure-without-clause' },
  { original: 'No matter where they are, people want clean water.', bad: "No matter where they're, people want clean water.", problem: 'clause-final-contraction' },
  { original: 'Several studies have demonstrated this effect.', bad: 'Several studies have showed this effect.', problem: 'past-form-after-have' },
  { original: 'Air pollution could lead to disease, and has led to many early deaths.', bad: 'Air pollution could lead to disease. Has led to many early deaths.', problem: 'fragment' },
  // From the audit of every rewrite of the training corpus.
  { original: 'I know how difficult it is to play those decks.', bad: "I know how difficult it's to play those decks.", problem: 'contraction-needs-full-form' },
  { original: 'The more options you have, the more likely you are to pick a great one.', bad: "The more options you have, the more likely you're to pick a great one.", problem: 'contraction-needs-full-form' },
  { original: 'Who you are matters more than what you own.', bad: "Who you're matters more than what you own.", problem: 'contraction-needs-full-form' },
  { original: 'What it is that makes a good teacher is hard to define.', bad: "What it's that makes a good teacher is hard to define.", problem: 'contraction-needs-full-form' },
  { original: 'It has never been more prominent than it is today.', bad: "It has never been more prominent than it's today.", problem: 'contraction-needs-full-form' },
  { original: 'The best way to avoid that is to get regular x-rays.', bad: "The best way to avoid that's to get regular x-rays.", problem: 'contraction-needs-full-form' },
  { original: 'Critics warned that the majority of the funding was never paid for.', bad: 'Critics warned that most the funding was never paid for.', problem: 'most-before-determiner' },
  { original: 'Moreover, the additional cost will be covered by relief funds.', bad: 'Moreover, the more cost will be covered by relief funds.', problem: 'quantifier-after-determiner' },
  { original: 'A more optimal setting exists for large repositories.', bad: 'A more best setting exists for large repositories.', problem: 'comparative-of-comparative' },
  { original: 'Democrats will have the ability to amend it in committee.', bad: 'Democrats will can amend it in committee.', problem: 'modal-before-can' },
  { original: 'If anything is unclear, let us know as soon as possible.', bad: "If anything is unclear, let's know as soon as possible.", problem: 'misused-lets' },
  { original: 'The bill requires that states submit spending plans by March 31, 2027.', bad: 'The bill needs that states submit spending plans by March 31, 2027.', problem: 'need-that-clause' },
  { original: 'The claim can be supported by a wide range of evidence.', bad: 'The claim can be supported by many evidence.', problem: 'many-with-singular-noun' },
  { original: "Cars have benefited individuals' lifestyles in many ways.", bad: "Cars have benefited people' lifestyles in many ways.", problem: 'possessive-without-s' },
  { original: 'Not only does this place drivers at risk, but it also endangers passengers.', bad: 'Not only does this place drivers at risk. But it also endangers passengers.', problem: 'not-only-without-but' },
  { original: 'JCF bought the C$301m ($228m; £179m) owed on the loan.', bad: 'JCF bought the C$301m ($228m. £179m) owed on the loan.', problem: 'unbalanced-brackets' },
  { original: 'Students need to be exposed to in order to develop social skills.', bad: 'Students need to be exposed to to develop social skills.', problem: 'doubled-word' },
] as const;

/**
 * Bad rewrites the audit of the whole corpus found (issue #15), with the model that made them:
 * the output must not contain `bad` (a piece of the bad rewrite) and must add no problem.
 */
const AUDITED_BAD_REWRITES: Array<{ model: HumanizerModel; original: string; bad: string }> = [
  // From a second audit, after the fixes of the first.
  { model: 'lexi', original: 'As demonstrated in the article, cities can live without cars.', bad: 'As showed' },
  { model: 'lexi', original: 'Results demonstrated in earlier work were mixed.', bad: 'Results showed in' },
  { model: 'lexi', original: 'Once demonstrated, the method was adopted widely.', bad: 'Once showed' },
  { model: 'lexi', original: 'Thousands of people demonstrated in the capital on Sunday, and police made 12 arrests.', bad: 'people showed' },
  { model: 'cognia', original: 'This is in spite of the fact that the economy experienced many shocks.', bad: 'is although' },
  { model: 'cognia', original: 'The data are reported in summary form in Table 2.', bad: 'in short form' },
  { model: 'cognia', original: 'As stated in conclusion 4 of the report, the bridge is safe.', bad: 'in short 4' },
  { model: 'huma_v2', original: 'Our solar system is huge there is alot of planets, and more uknown things humans do not know about.', bad: 'planets. More' },
  { model: 'lexi', original: 'The estimator is robust to outliers and heteroskedasticity.', bad: 'strong to' },
  { model: 'huma_v2', original: 'He needed to not get any of the majority of the votes to lose.', bad: 'any of most' },
  { model: 'lexi', original: 'These are necessary and sufficient conditions for convergence.', bad: 'enough conditions' },
  { model: 'lexi', original: 'Physician assisted suicide remains illegal in most states.', bad: 'helped suicide' },
  { model: 'lexi', original: 'Assisted living facilities are expensive in this region.', bad: 'Helped living' },
  { model: 'lexi', original: 'The trial found enhanced susceptibility to obesity in the mice.', bad: 'improved susceptibility' },
  { model: 'lexi', original: 'We present a method for fast optimal estimation of the spectrum.', bad: 'best estimation' },
  { model: 'lexi', original: 'They have fostered three children since 2015.', bad: 'encouraged three children' },
  { model: 'lexi', original: 'The fund is highly leveraged, and its losses were large.', bad: 'highly used' },
  { model: 'huma_v2', original: 'It could be argued that social media fosters connection.', bad: 'Social media' },
  { model: 'huma_v2', original: 'He said the company was growing quickly, and it would hire 200 people next year.', bad: 'quickly. It would' },
  { model: 'cognia_v2', original: 'The firm opened two new offices in the U.S., and it hired 300 people there last year.', bad: 'U.S..' },
  { model: 'cognia_v2', original: 'Our sales team grew a lot last year, and eBay traffic doubled after that launch.', bad: 'EBay' },
  { model: 'huma_v2', original: 'However, he said, the plan was sound and the budget was fine.', bad: 'But he said' },
  { model: 'cognia', original: 'It is worth noting that pnpm utilizes a content-addressable store for packages.', bad: 'Pnpm' },
  { model: 'cognia_v2', original: 'We moved all of the builds to a new server; pnpm handles the whole monorepo now.', bad: 'Pnpm' },
  // Word swaps that broke grammar.
  { model: 'lexi', original: 'Our results demonstrate that robustness is not monotonic in model size, and the majority of the observed failures stem from tokenization artifacts.', bad: 'most the observed' },
  { model: 'lexi', original: "It's an unfair way to vote. 538 electors and the majority of 270 votes to elect the president seems to have problems every time.", bad: 'most 270' },
  { model: 'huma_v2', original: 'Senator Maria Lopez (D-N.M.) said the vote "is able to change how we build for a generation," but critics warned that the majority of the funding was never paid for.', bad: 'most the funding' },
  { model: 'lexi', original: 'Students who are actively involved in extracurricular activities can often find themselves burdened by the additional work, leading to decreased academic performance.', bad: 'the more work' },
  { model: 'lexi', original: 'Moreover, the additional cost will be covered by unspent pandemic relief.', bad: 'the more cost' },
  { model: 'lexi', original: 'This is the optimal setting for most users, but a more optimal setting exists for large repositories.', bad: 'more best' },
  { model: 'lexi', original: 'This computer would have the ability to stimulate lessons that would keep kids enterained and focused.', bad: 'would can' },
  { model: 'huma_v2', original: 'Democrats will have the ability to amend it in committee.', bad: 'will can' },
  { model: 'lexi', original: 'The bill requires that states submit spending plans by March 31, 2027.', bad: 'needs that' },
  { model: 'huma_v2', original: 'Scientific rigor requires that we investigate this  variability, and with some confidence we can attribute the variability  prior to about 1800 to volcanic activity and changes in the sun.', bad: 'needs that' },
  { model: 'lexi', original: 'In my opinion, I think the policy of requiring student athletes to maintain a grade B or higher average should be strictly implemented in schools.', bad: 'needing student' },
  { model: 'lexi', original: "Children and youth must be free to do what they please outside the school environment but schools just can't require so much activity beyond what is required for survival in today's complex world.", bad: "can't need" },
  { model: 'lexi', original: 'I would like to put my opinion about students being required to perform community service.', bad: 'being needed' },
  { model: 'lexi', original: 'Students need to be able to use cell phones, because then they have less time to do their required work.', bad: 'their needed work' },
  { model: 'lexi', original: "Cars, undoubtedly, have benefited individuals' lifestyles in many ways.", bad: "people'" },
  { model: 'lexi', original: "The company has individuals' data on file, and it must protect it.", bad: "people'" },
  { model: 'lexi', original: 'One example of given limitations was the deployment of the balloon-assisted Venera-13 satellite that had a landing time of two hours.', bad: 'balloon-helped' },
  { model: 'lexi', original: 'The one necessary tool that computer-assisted learning cannot account for with is fluid intuitive thoughtfulness.', bad: 'computer-helped' },
  { model: 'lexi', original: 'I endeavored to make every report self-sufficient, so that readers did not require additional explanation.', bad: 'self-enough' },
  { model: 'lexi', original: 'He averages 2 assists per contest and 4 rebounds per game for Kentucky.', bad: '2 helps' },
  { model: 'huma_v2', original: 'He has a total of 43 assists on the season and averages 23 minutes played per game.', bad: '43 helps' },
  { model: 'cognia', original: 'The claim that the "Face on Mars" is a natural landform and not created by aliens can be supported by a wide range of evidence.', bad: 'many evidence' },
  { model: 'cognia', original: 'The question as to why it’s an idea with details heavily scouted by astronomers begins and ends with a plethora of untapped potential.', bad: 'many untapped' },
  { model: 'lexi', original: 'Today, we still see a plethora of merchandise related to popular TV shows, but it all started with these classic comic books.', bad: 'many merchandise' },
  // Meaning changes.
  { model: 'cognia', original: 'Phonetics is often defined with respect to phonology.', bad: 'about phonology' },
  { model: 'cognia', original: "The particle's position with respect to time is described by:", bad: 'about time' },
  { model: 'cognia', original: 'The gradient of the loss with respect to the weights is computed numerically.', bad: 'about the weights' },
  { model: 'huma_v2', original: '- Treat every warning with respect to the exit code: a non-zero exit code means the build failed.', bad: 'warning about' },
  { model: 'lexi', original: 'Those in the southern sections may be much taller than the typical 6- to 12-foot individuals that grow on slopes and hillsides.', bad: '12-foot people' },
  { model: 'lexi', original: 'Of the 20,923 households in the city, 14,095 (67.3%) were families, and 6,108 (28.7%) were individuals.', bad: 'were people' },
  { model: 'lexi', original: 'Birds of this species are solitary, and individuals rarely meet outside the breeding season.', bad: 'people rarely' },
  { model: 'lexi', original: 'Over the past three years, I have demonstrated a robust ability to facilitate cross-functional meetings.', bad: 'help cross' },
  { model: 'lexi', original: 'These findings represent a paradigm shift, and they facilitate the design of more reliable systems.', bad: 'help the design' },
  { model: 'lexi', original: 'The comprehensive school in our town closed in 2019.', bad: 'thorough school' },
  { model: 'huma_v2', original: 'If anything is unclear, let us know as soon as possible.', bad: "let's" },
  { model: 'huma_v2', original: 'I would welcome the opportunity to discuss my application; please let us know a time that suits you.', bad: "let's" },
  { model: 'huma_v2', original: 'That being said because we don\'t have nothing to keep our grade up for in you won\'t let us do sport\'s with a "C".', bad: "let's" },
  { model: 'huma_v2', original: 'Thus, many companies involved in producing driverless cars are in talks with regulatory bodies.', bad: 'So many' },
  { model: 'huma_v2', original: 'Nevertheless, teachers must ensure that every student receives sufficient assistance.', bad: 'Still teachers' },
  // Contractions English does not allow.
  { model: 'huma_v2', original: 'I will also share my thoughts on how difficult it is to play those decks.', bad: "it's to" },
  { model: 'huma_v2', original: 'Do you ever wonder how amazing it is to study another planet.', bad: "it's to" },
  { model: 'huma_v2', original: 'The easier it is to think out, the easier it is to find the best choice for you.', bad: "it's to" },
  { model: 'huma_v2', original: 'The more options you have, the more likely you are to pick a great one.', bad: "you're to" },
  { model: 'huma_v2', original: 'The more advice you get the better off you are more advice becomes into better ideas.', bad: "off you're" },
  { model: 'huma_v2', original: 'I hope you can find it as rewarding as I am to write about, knowing that we left this musical journey far too early.', bad: "I'm to" },
  { model: 'huma_v2', original: 'Who you are matters more than what you own.', bad: "you're" },
  { model: 'huma_v2', original: 'What it is that makes a good teacher is hard to define.', bad: "it's" },
  { model: 'huma_v2', original: 'If a student is unable to ask a question in class, they will continue to be confused about whatever it is they had a question about.', bad: "it's they" },
  { model: 'huma_v2', original: 'Lent is about becoming, doing and changing whatever it is that is blocking the fullness of life in us right now...', bad: "it's that" },
  { model: 'huma_v2', original: 'The importance of seeking advice from multiple sources to act during decisions has perhaps never been more prominent than it is today.', bad: "it's today" },
  { model: 'huma_v2', original: 'The best way to avoid that is to get regular x-rays.', bad: "that's" },
  { model: 'huma_v2', original: 'some informstion i put up there is to inform you what they do and how many votes are required to elect president.', bad: "there's" },
  // Splits that left fragments or changed the scope.
  { model: 'cognia_v2', original: 'Not only does this place drivers at risk, but it also endangers passengers, pedestrians, and other drivers sharing the road.', bad: 'at risk.' },
  { model: 'huma_v2', original: 'This approach is not only cheaper, but it is also faster than the old one.', bad: 'cheaper.' },
  { model: 'cognia_v2', original: 'The students were tested in May, and the results published in June.', bad: 'May.' },
  { model: 'cognia_v2', original: 'I really like the way the sequence turns out, and the way the whole thing plays into the theme of the movie which is all about the evil power of the human eye.', bad: 'turns out.' },
  { model: 'huma_v2', original: 'Balancing education and fun with your energy and time dwindling with every cumulative but successful day has made more, and more students explore ahead to take their classes online.', bad: 'made more.' },
  { model: 'cognia_v2', original: "Reuters news agency reports that last autumn JCF Capital ULC bought the C$301m ($228m; £179m) owed on the tower's construction loan.", bad: '$228m.' },
  { model: 'cognia_v2', original: 'Patients with diabetic retinopathy had a higher mean (SE) age (56.0 [0.9] versus 60.2 [0.5] years; P < 0.001), were less often white, male, and married.', bad: 'years.' },
  { model: 'huma_v2', original: 'It is not known why Norma Jeane left the US and went to Trinidad (the Caribbean was not in the South, but it is known to have been common there, so it is not unlikely).', bad: 'South.' },
  { model: 'cognia_v2', original: 'How would you feel if in 20 or so years you see the boy again, and he tells you that his life has been a failure because all he wanted to do was play basketball.', bad: 'again.' },
  { model: 'cognia_v2', original: "Only practicing up to college's core education; time management becomes increasingly necessary for young freelancers and entrepreneurs.", bad: 'education.' },
  { model: 'cognia_v2', original: 'Bills can be introduced to Parliament in a number of ways; the Scottish Government can introduce new laws or amendments to existing laws as a bill; a committee of the Parliament can present a bill in one of the areas under its remit; or a private bill can be submitted to Parliament by an outside proposer.', bad: 'ways.' },
  // Protected text and the writer's spacing.
  { model: 'cognia', original: 'Run `redline init --dir ./project` in order to create a config file.', bad: '--dir./project' },
  { model: 'huma_v2', original: 'we have compared the antisecretory effects of a preanesthetic h2 antagonist ( roxatidine , cardiopulmonary bypass - h2 group , n  =  15 ) in order to see the effect .', bad: 'n = 15' },
  { model: 'huma_v2', original: 'NASA are working on different ways to study venus It states that " some simlified electronics made electronics ...and have lasted for three weeks in such conditions." this means they are testing electronics.', bad: 'electronics...and' },
  // Minor.
  { model: 'cognia', original: 'They also provide a social environment that school age students need to be exposed to in order to develop necessary social skills.', bad: 'to to' },
  { model: 'lexi', original: 'Another benefit of the program is the satisfaction of participating in monumental, selfless assistance efforts.', bad: 'help efforts' },
  { model: 'huma_v2', original: 'However, for the sake of those who will read the guide later, but also those who are interested enough to want to read it, this will cover the most topical aspects of independence.', bad: 'But for the sake' },  // From a third audit (State of the Union speeches, Moby-Dick, the Vim manual, package READMEs,
  // e-mails and public-style texts), after the fixes of the first two.
  { model: 'lexi', original: 'And simultaneously, they are endeavoring to weld their whole vast area and population into a completely self-contained, advanced industrial society.', bad: 'triing' },
  { model: 'lexi', original: 'To further improve our fiscal outlook, we should make some changes in our tax system which will yield a moderate amount of additional revenue.', bad: 'of more revenue' },
  { model: 'lexi', original: 'However, certain additional measures are needed.', bad: 'certain more' },
  { model: 'lexi', original: 'And we will also provide strong additional incentives for business investment and growth.', bad: 'strong more' },
  { model: 'lexi', original: 'I will suggest that Congress appropriate a very small additional allowance for official expenses.', bad: 'small more' },
  { model: 'lexi', original: 'The libraries are also maintained as part of this project, alongside various additional binaries like the acquire methods used by them.', bad: 'various more' },
  { model: 'lexi', original: 'The whole interstate system must be authorized as one project, to be completed approximately within the specified time.', bad: 'about within' },
  { model: 'lexi', original: 'It was only by such a large number of fifties being found together, that his astonishment at the multitude of pages was excited.', bad: 'such many' },
  { model: 'cognia', original: 'I knew that I was elected for the purpose of doing a job and doing it as well as I possibly can.', bad: 'elected for doing' },
  { model: 'lexi', original: 'Those who preach violence must know that local authorities are able to resist them swiftly, to resist them sternly, and to resist them decisively.', bad: 'can resist them swiftly' },
  { model: 'lexi', original: 'In accomplishing this, Government programs for maintaining employment and purchasing power have been of tremendous benefit.', bad: 'buying power' },
  { model: 'lexi', original: 'In other areas of the Far East, our assistance has helped sustain a staunch resistance against insurrectionary attacks.', bad: 'help has helped' },
  { model: 'lexi', original: 'But we stand ready-with credit and other help-to assist the flow of trade which will benefit the entire Nation.', bad: 'help-to help' },
  { model: 'lexi', original: 'When welfare reform is completed, we will have more jobs so that those on welfare who are able to work can work.', bad: 'can work can work' },
  { model: 'huma_v2', original: 'The word TODO inside it is matched by xTodo and highlighted yellow.', bad: "it's matched" },
  { model: 'huma_v2', original: 'Many of you are assembling in or near the Middle East.', bad: "you're" },
  { model: 'huma_v2', original: 'We have freedom and justice, and all of it is possible thanks to their sacrifice.', bad: "it's possible" },
  { model: 'huma_v2', original: 'But we will not engage in appeasement.', bad: "we'll not" },
  { model: 'cognia_v2', original: "He called it the Sleet's crow's-nest, in honour of himself; he being the original inventor and patentee, and free from all ridiculous false delicacy.", bad: 'himself.' },
  { model: 'cognia_v2', original: 'And so it turned out; Mr. Hosea Hussey being from home, but leaving Mrs. Hussey entirely competent to attend to all his affairs.', bad: 'turned out.' },
  { model: 'cognia_v2', original: 'The same waves wash the moles of the new-built Californian towns, but yesterday planted by the recentest race of men, and lave the faded but still gorgeous skirts of Asiatic lands.', bad: 'towns.' },
  { model: 'cognia_v2', original: 'Merely make a spread angle of two poles, and you cannot stand them up.', bad: 'poles.' },
  { model: 'cognia_v2', original: "Steering now south-eastward by Ahab's levelled steel, and her progress solely determined by Ahab's level log and line; the Pequod held on her path towards the Equator.", bad: 'line.' },
  { model: 'cognia_v2', original: 'Yet all sailors of all sorts are more or less capricious and unreliable—they live in the varying outer weather, and they inhale its fickleness—and when retained for any object remote and blank in the pursuit, they grow restless.', bad: 'weather.' },
  { model: 'cognia_v2', original: 'Many new items of business likewise require our attention-measures that will further promote the release of the energies of our people; that will broaden opportunity for all of them; that will advance the Republic in its leadership toward a just peace.', bad: '. That will' },
  { model: 'huma_v2', original: 'I look forward again to working with this Congress in establishing a new set of standards that respect the legitimate needs of society, but that also recognize personal privacy as a cardinal principle of American liberty.', bad: 'society.' },
  { model: 'cognia_v2', original: 'This American contribution to nations who have the will to defend their freedom, but insufficient means, should be vigorously continued.', bad: 'freedom.' },
  { model: 'cognia_v2', original: 'This means both new functions and types in libdbus, and new methods exported to applications by the bus daemon.', bad: 'libdbus.' },
  // From a probe of 2000–2019 State of the Union sentences (2026-11-29): the second "very" of a repeated one went.
  { model: 'cognia', original: 'Crumbling infrastructure will be replaced with new roads, bridges, tunnels, airports, and railways gleaming across our very, very beautiful land.', bad: 'very, beautiful' },
  { model: 'lexi', original: 'And they will do it quickly, and they will be very, very happy, indeed.', bad: 'very, happy' },
  { model: 'huma_v2', original: 'And they will do it quickly, and they will be very, very happy, indeed.', bad: 'very, happy' },
];

/** Rewrites the audit found good: the fixes must keep them. */
const GOOD_REWRITES: Array<{ model: HumanizerModel; original: string; rewrite: string }> = [
  { model: 'cognia', original: 'We use a wide range of tools every day.', rewrite: 'We use many tools every day.' },
  { model: 'lexi', original: 'We utilize additional resources in order to finish.', rewrite: 'We use more resources to finish.' },
  { model: 'lexi', original: 'Everyone has the ability to learn.', rewrite: 'Everyone can learn.' },
  { model: 'huma_v2', original: 'Thus, many companies are in talks with regulators.', rewrite: 'So, many companies are in talks with regulators.' },
  { model: 'huma_v2', original: 'The new tool is really great, and we are going to use it every day.', rewrite: "The new tool is really great. We're going to use it every day." },
  { model: 'cognia_v2', original: 'The committee met on Monday, and the members approved the budget for next year.', rewrite: 'The committee met on Monday. The members approved the budget for next year.' },
  { model: 'lexi', original: 'Season with salt and pepper; taste, and add additional lemon juice if needed.', rewrite: 'Season with salt and pepper; taste, and add more lemon juice if needed.' },
  { model: 'lexi', original: 'The river is approximately 200 miles long.', rewrite: 'The river is about 200 miles long.' },
  { model: 'huma_v2', original: 'But we will not stop until it is clear that we are right.', rewrite: "But we won't stop until it's clear that we're right." },
];


describe('grammar guard', () => {
  it.each(BAD_REWRITES)('flags "$bad" ($problem) and not its original', ({ original, bad, problem }) => {
    expect(grammarProblems(bad)).toContain(problem);
    expect(grammarProblems(original)).toEqual([]);
    expect(introducedProblems(original, bad)).toContain(problem);
  });

  it('does not flag sound sentences that look alike', () => {
    for (const sentence of ['Can a dog swim?', 'Note that this works.', 'Using tools is good.', 'It is a lot better.', "I think it's great.", 'They have shown interest.', 'Make sure that the door is locked.']) {
      expect(grammarProblems(sentence), sentence).toEqual([]);
    }
  });

  it('counts only problems the rewrite added, not ones the writer had', () => {
    const original = "No matter where they're, we go. The team can a lot improve.";
    expect(introducedProblems(original, original)).toEqual([]);
    expect(introducedProblems(original, `${original} They have showed it.`)).toEqual(['past-form-after-have']);
  });
});

describe('the audited bad rewrites are not made', () => {
  it.each(AUDITED_BAD_REWRITES)('$model does not write "$bad"', ({ model, original, bad }) => {
    expect(original).not.toContain(bad);
    const output = humanize(original, model).humanized_text;
    expect(output).not.toContain(bad);
    expect(introducedProblems(original, output), output).toEqual([]);
  });

  it.each(GOOD_REWRITES)('$model still rewrites "$original"', ({ model, original, rewrite }) => {
    expect(humanize(original, model).humanized_text).toBe(rewrite);
  });

  it('keeps quotations after a stray quote mark, and `code`, exactly as written', () => {
    const stray = 'It is called ""The Big Sleep""". The moral: "A man\'s responsibility is not to God, but to his kind."';
    expect(humanize(stray, 'huma_v2').humanized_text).toContain('"A man\'s responsibility is not to God, but to his kind."');
    expect(humanize('"No, you were not!"', 'huma_v2').humanized_text).toBe('"No, you were not!"');
    const unclosed = '"He\'s working on a project. He was going to let me go with it, but I\'ve heard too many stories. "It\'s a good movie, and I can\'t get a part in \'The Death.\' "\n\nWe left.';
    expect(humanize(unclosed, 'huma_v2').humanized_text).toBe(unclosed);
    const code = 'Run `redline init --dir ./project` in order to create a config file.';
    const spans = findProtectedSpans(code);
    expect(code.slice(spans[0]!.start, spans[0]!.end)).toBe('`redline init --dir ./project`');
    expect(protectedTextProblems(code, spans, code.replace(' ./', './'))).toEqual(['protected-text-changed']);
  });
});

describe('humanizer models never produce the bad rewrites', () => {
  for (const model of HUMANIZER_MODELS) {
    it(`${model}`, () => {
      for (const { original, bad } of BAD_REWRITES) {
        const output = humanize(original, model).humanized_text;
        expect(output).not.toBe(bad);
        expect(introducedProblems(original, output), `${model}: ${output}`).toEqual([]);
      }
      const adjective = humanize('The rules differ in individual cases.', model).humanized_text;
      expect(adjective).not.toContain('person cases');
      for (const list of ['We bought apples, pears, and plums, and we ate them all at home.', 'You need bread, milk and eggs, and some fruit for the children.']) {
        expect(humanize(list, model).humanized_text.split('. ')).toHaveLength(1);
      }
    });
  }
});

describe('rewrites the corpus guard refused once', () => {
  it('does not contract onto a clitic, split a question or split after a dependent clause', () => {
    expect(humanize("They aren't necessary or completely reliable.", 'huma_v2').humanized_text).toBe("They aren't necessary or completely reliable.");
    const question = 'Are you looking for a great price, but you find the car you want in a different color?';
    expect(humanize(question, 'huma_v2').humanized_text).toBe(question);
    const dependent = 'If the class expects you to finish an activity quickly, but that is not how some students learn, those students fall behind.';
    expect(humanize(dependent, 'cognia_v2').humanized_text).toBe(dependent);
  });

  it('keeps "I am" → "I\'m" (the tagger reads "I\'m" as one token, which still carries a verb)', () => {
    expect(humanize('I am a lifelong entrepreneur.', 'huma_v2').humanized_text).toBe("I'm a lifelong entrepreneur.");
  });
});

describe('model characters', () => {
  const text =
    'Moreover, it is important to note that organizations utilize numerous tools in order to work; they are not going to stop, and the costs have demonstrated this.';
  const outputs = Object.fromEntries(HUMANIZER_MODELS.map((model) => [model, humanize(text, model).humanized_text]));

  it('cognia only cuts wordy phrases and filler openers', () => {
    expect(outputs.cognia).toBe('Organizations utilize numerous tools to work; they are not going to stop, and the costs have demonstrated this.');
  });
  it('lexi uses plainer words and connectives, with the verb form kept', () => {
    expect(outputs.lexi).toBe('Also, organizations use many tools to work; they are not going to stop, and the costs have shown this.');
  });
  it('cognia_v2 restructures: clause joints split, the connective moved into the clause, no word swapped', () => {
    expect(outputs.cognia_v2).toBe('Organizations also utilize numerous tools to work. They are not going to stop. The costs have demonstrated this.');
  });
  it('huma_v2 changes the voice most: connectives, contractions, plain words and splits', () => {
    expect(outputs.huma_v2).toBe("Also, organizations use many tools to work. They're not going to stop. The costs have shown this.");
  });
  it('gives four different rewrites of stock AI prose', () => {
    const stock =
      'In conclusion, it is important to note that technology plays a crucial role in education. Moreover, students utilize numerous digital tools on a daily basis, which means that teachers must adapt. However, the transition is not always easy, and many schools do not have sufficient funding.';
    const rewrites = HUMANIZER_MODELS.map((model) => humanize(stock, model).humanized_text);
    expect(new Set(rewrites).size).toBe(4);
    for (const rewrite of rewrites) expect(introducedProblems(stock, rewrite), rewrite).toEqual([]);
  });
});

describe('plain phrases and connectives', () => {
  const text = 'However, the team is able to ensure that the data stays private. In addition, a large number of users log in prior to the audit.';
  it('lexi rewords stiff phrases; huma_v2 also opens sentences conversationally; cognia drops the filler opener; cognia_v2 moves "however"', () => {
    expect(humanize(text, 'cognia').humanized_text).toBe('However, the team is able to ensure that the data stays private. A large number of users log in prior to the audit.');
    expect(humanize(text, 'lexi').humanized_text).toBe('However, the team can make sure that the data stays private. Also, many users log in before the audit.');
    expect(humanize(text, 'cognia_v2').humanized_text).toBe('The team, however, is able to ensure that the data stays private. A large number of users log in prior to the audit.');
    expect(humanize(text, 'huma_v2').humanized_text).toBe('But the team can make sure that the data stays private. Also, many users log in before the audit.');
  });
});

const CORPUS = path.resolve(import.meta.dirname, '../../../shared/data/detector-corpus/train.jsonl');

describe('grammar guard over the training corpus', () => {
  it.skipIf(!existsSync(CORPUS))('no model introduces a grammar problem or loses a protected span, on human and machine texts', () => {
    const rows = readFileSync(CORPUS, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { text: string; label: string });
    // Every 40th text: human, machine and mixed ones from all three corpora.
    const sample = rows.filter((_, i) => i % 40 === 0);
    expect(new Set(sample.map((row) => row.label))).toEqual(new Set(['human', 'ai', 'mixed']));
    let rewritten = 0;
    for (const { text } of sample) {
      const kept = findProtectedSpans(text).map((span) => text.slice(span.start, span.end));
      for (const model of HUMANIZER_MODELS) {
        const { humanized_text, outcome } = humanizeWithOutcome(text, model);
        rewritten += outcome.rewritten.length;
        expect(introducedProblems(text, humanized_text), `${model} on ${text.slice(0, 60)}`).toEqual([]);
        for (const span of kept) expect(humanized_text, `${model} keeps ${span}`).toContain(span);
      }
    }
    expect(rewritten).toBeGreaterThan(100);
  }, 120_000);
});

/**
 * Issue #15, fourth audit: the models gave the same rewrite of most stock AI prose, a text could
 * mix "don't" and "do not", and formal texts got a casual voice. Each case failed before its fix.
 */
describe('each model has a character of its own', () => {
  const cases: Array<{ model: HumanizerModel; original: string; rewrite: string }> = [
    // cognia: clarity edits.
    { model: 'cognia', original: 'Moreover, students need more time to finish their homework.', rewrite: 'Students need more time to finish their homework.' },
    { model: 'cognia', original: 'It is a very important issue for the school.', rewrite: 'It is an important issue for the school.' },
    { model: 'cognia', original: 'The new rules are very strict.', rewrite: 'The new rules are strict.' },
    { model: 'cognia', original: 'First and foremost, the plan works.', rewrite: 'First, the plan works.' },
    { model: 'cognia', original: 'People must decide whether or not to go.', rewrite: 'People must decide whether to go.' },
    { model: 'cognia', original: 'Artificial intelligence has the potential to transform healthcare.', rewrite: 'Artificial intelligence could transform healthcare.' },
    { model: 'cognia', original: 'This serves as a reminder of the past.', rewrite: 'This is a reminder of the past.' },
    // lexi: plainer words and connectives.
    { model: 'lexi', original: 'Students obtained good grades in the spring.', rewrite: 'Students got good grades in the spring.' },
    { model: 'lexi', original: 'They attempted to climb the wall twice.', rewrite: 'They tried to climb the wall twice.' },
    { model: 'lexi', original: 'Regular exercise is beneficial to health.', rewrite: 'Regular exercise is helpful to health.' },
    { model: 'lexi', original: 'He frequently visits his aunt in Ohio.', rewrite: 'He often visits his aunt in Ohio.' },
    { model: 'lexi', original: 'Consequently, the project was delayed by a year.', rewrite: 'As a result, the project was delayed by a year.' },
    // cognia_v2: restructuring.
    { model: 'cognia_v2', original: 'Moreover, students need more time to finish their homework.', rewrite: 'Students also need more time to finish their homework.' },
    { model: 'cognia_v2', original: 'Therefore, schools must act quickly on this.', rewrite: 'Schools must therefore act quickly on this.' },
    { model: 'cognia_v2', original: 'However, the technology would initially impose challenges.', rewrite: 'The technology, however, would initially impose challenges.' },
    { model: 'cognia_v2', original: 'The team uses new tools every day, which means that costs go down.', rewrite: 'The team uses new tools every day. This means that costs go down.' },
    { model: 'cognia_v2', original: 'The mission collected many images of the planet, leading to new theories.', rewrite: 'The mission collected many images of the planet. This led to new theories.' },
    {
      model: 'cognia_v2',
      original: 'Rising global temperatures have led to more frequent extreme weather events, causing significant damage to communities around the world.',
      rewrite: 'Rising global temperatures have led to more frequent extreme weather events. This has caused significant damage to communities around the world.',
    },
    {
      model: 'cognia_v2',
      original: 'The software could detect facial expressions such as confusion or boredom, providing timely feedback to instructors.',
      rewrite: 'The software could detect facial expressions such as confusion or boredom. This could provide timely feedback to instructors.',
    },
    { model: 'cognia_v2', original: 'However, the transition is hard, and many schools lack the money for it.', rewrite: 'The transition, however, is hard, and many schools lack the money for it.' },
    // huma_v2: contractions also over an adverb.
    { model: 'huma_v2', original: 'It is also important to take regular breaks.', rewrite: "It's also important to take regular breaks." },
  ];
  it.each(cases)('$model: "$original"', ({ model, original, rewrite }) => {
    const output = humanize(original, model).humanized_text;
    expect(output).toBe(rewrite);
    expect(introducedProblems(original, output)).toEqual([]);
  });

  it('lexi swaps no verb for a noun and keeps hedges', () => {
    // The tagger calls "endeavor" after "should" a noun: "should effort to adhere" was written.
    expect(humanize('All organizations attending should endeavor to adhere to the rules.', 'lexi').humanized_text).not.toContain('should effort');
    // "indicate" hedges, "show" asserts.
    expect(humanize('Statistics indicate that texting while driving is dangerous.', 'lexi').humanized_text).toContain('indicate');
    expect(humanize('The dead are thought to possess them at night.', 'lexi').humanized_text).toContain('possess them');
  });

  it('does not say "Also," twice in a row, nor before a clause with its own "also"', () => {
    const text = 'Moreover, the plan is cheap. Furthermore, it is fast. Additionally, studies indicate that users also like it.';
    const output = humanize(text, 'lexi').humanized_text;
    expect(output.match(/Also,/gu) ?? []).toHaveLength(1);
    expect(output).not.toMatch(/Also,[^.]* also /u);
  });
});

describe('restructuring keeps what the sentence says', () => {
  const kept = [
    // A participle coordinated with another: both would have to change.
    'The factories pollute the river, reducing air quality and increasing respiratory issues for residents.',
    // The main clause goes on after the comment.
    'The phone that I bought last year, which is old, still works well.',
    // "which" that is not a comment on the clause ("This contained" would name the wrong thing).
    'The Viking 1 mission collected data and images of the Martian topography, which contained an odd structure.',
    // After a dependent clause: "when …, leading to" is not "This leads to".
    'Projects are easy when they can be geared towards the interests of students, leading to success in the end.',
    // The opening phrase scopes over both halves.
    'Notwithstanding the foregoing, the buyer may use the goods for internal purposes, and it is not required to pay more.',
    'For example, the city built new roads last year, and the residents drove more often after that.',
  ];
  it.each(kept)('cognia_v2 keeps "%s" in one sentence', (text) => {
    expect(humanize(text, 'cognia_v2').humanized_text.split(/(?<=\.) /u)).toHaveLength(1);
  });

  it('puts "also" after a gerund subject, never inside it', () => {
    expect(humanize('Moreover, spending dedicated time to activities requires strategic planning.', 'cognia_v2').humanized_text).not.toContain('Spending also');
    expect(humanize('Furthermore, prioritizing tasks helps students focus.', 'cognia_v2').humanized_text).toBe('Prioritizing tasks also helps students focus.');
  });

  it('gives the reason its own sentence in the clause\'s tense', () => {
    expect(humanize('Many students prefer online classes, because they can learn at their own pace.', 'cognia_v2').humanized_text).toBe(
      'Many students prefer online classes. This is because they can learn at their own pace.',
    );
    expect(humanize('The committee rejected the plan last week, because it was too expensive.', 'cognia_v2').humanized_text).toBe(
      'The committee rejected the plan last week. This was because it was too expensive.',
    );
    const cause = 'The roads were closed for the whole day, because of the heavy snow.';
    expect(humanize(cause, 'cognia_v2').humanized_text).toBe(cause);
  });

  it('says "This may lead to" after "may", past "being"', () => {
    const text = 'The emotions being read may not always reflect the state of the student, resulting in distorted effects.';
    expect(humanize(text, 'cognia_v2').humanized_text).toBe('The emotions being read may not always reflect the state of the student. This may lead to distorted effects.');
  });

  it('takes the tense from the main verb, not from a participle after a noun', () => {
    const text = 'One of the major concerns linked to them is the failure of software components, leading to potential accidents.';
    expect(humanize(text, 'cognia_v2').humanized_text).not.toContain('This led');
  });

  it('does not add "also" to a clause that ends "as well"', () => {
    expect(humanize('Moreover, community service is an integral part of civic life as well.', 'cognia_v2').humanized_text).not.toContain(' also ');
  });

  it('does not pull one participle out of a list of them', () => {
    const text = 'This system can optimize our experiences in airports, offering smoother boarding, providing comfort when needed, avoiding peak loads.';
    expect(humanize(text, 'cognia_v2').humanized_text).toBe(text);
  });

  it('does not add "also" to a subject that already says so', () => {
    expect(humanize('Furthermore, another instance would be the trip to Ohio.', 'cognia_v2').humanized_text).toBe('Another instance would be the trip to Ohio.');
  });
});

describe('one text, one voice', () => {
  it('does not mix "aren\'t" and "are not" when one sentence cannot take every edit', () => {
    const text =
      'Overall, online learning is helpful because students have the ability to rewatch/reread content, common in classroom distractions are not present, and students can learn at home. Teachers are not always available.';
    const output = humanize(text, 'huma_v2').humanized_text;
    expect(output).toContain("distractions aren't present");
    expect(output).toContain("Teachers aren't always available");
  });

  it('keeps a negation in full everywhere when it cannot be contracted everywhere', () => {
    const output = humanize('We do not like the plan. They do  not know it yet.', 'huma_v2').humanized_text;
    expect(output).toBe('We do not like the plan. They do  not know it yet.');
  });

  it('gives legal text no contractions, no casual openers and no splits', () => {
    const text =
      'The Licensee shall not sublicense the Software without the consent of the Licensor. The Licensee may use the Software for internal purposes, and it is not required to pay any fees. However, the Licensor does not warrant that the Software will be error-free. Thus, the Licensee will not be entitled to a refund.';
    const output = humanize(text, 'huma_v2').humanized_text;
    expect(output).not.toMatch(/n't|'s |But |So,/u);
    expect(output).toContain('internal purposes, and it is not required');
  });

  it('makes no casual swap in formal text ("we obtained a term" is not "we got")', () => {
    const text = 'So, we obtained a spin-dependent term with $n_i$, where the superscript $(I)$ denotes the state.';
    expect(humanize(text, 'lexi').humanized_text).toContain('we obtained');
  });

  it('gives academic text no contractions', () => {
    const text =
      'We propose a new estimator that is robust to outliers (Smith et al., 2019). The estimator does not degrade with dimension [12]. However, the method is not suitable for streaming data.';
    expect(humanize(text, 'huma_v2').humanized_text).not.toMatch(/n't|But /u);
  });
});
