import { applyVerified } from '../lib/content/apply.ts';
import { provide } from '../lib/content/on-demand.ts';

/** The verified apply of an accepted suggestion, imported by the content script at the first accept (on-demand.ts). */
export default defineUnlistedScript(() => provide('apply', applyVerified));
