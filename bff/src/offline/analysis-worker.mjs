// Entry of an offline-analysis worker thread. Workers start without the parent's loader
// flags, so this plain module registers tsx itself (resolved from here, whatever the working
// directory) before loading the TypeScript analyzers.
import { register } from 'tsx/esm/api';

register();
const { analyse } = await import('./analyse.ts');

export default analyse;
