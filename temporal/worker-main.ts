// Process entry of the Temporal worker and outbox relay alone (`npm run start:worker`).
import { enableCompileCacheForThreads } from '../config/compile-cache.js';

// Loading the worker's modules is most of its start (about 0.7 s of the time to its first delivery). With
// Node's compile cache (in the system's temporary folder; a start that cannot write it just goes without),
// a restarted worker, such as one replaced by a deploy, reuses the code compiled by its predecessor, and so
// does its workflow thread. It has to be on before the modules load, hence this entry of its own.
enableCompileCacheForThreads();
await import('./worker-process.js');
