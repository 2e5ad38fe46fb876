// Entry of the source-indexing thread when the BFF runs from its TypeScript sources: threads
// start without the parent's loader flags, so this plain module registers tsx itself, as
// analysis-worker.mjs does. The bundle (bff/build.mjs) builds source-index-thread.ts instead.
import { register } from 'tsx/esm/api';

register();
await import('./source-index-thread.ts');
