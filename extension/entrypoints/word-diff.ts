import { diffWords } from 'diff';
import { provide } from '../lib/content/on-demand.ts';

/** The word diff of a sentence's rewrite, imported by the content script when the card shows one (on-demand.ts). */
export default defineUnlistedScript(() => provide('wordDiff', diffWords));
