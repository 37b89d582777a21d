// Process entry of the API alone (`npm run start:api`); several may run against one database and Temporal.
import { enableCompileCacheForThreads } from '../config/compile-cache.js';

// Loading the API's modules is most of its start (about 1.6 s of the 2.2 s to its first answer on the 2-core
// benchmark machine). With Node's compile cache (in the system's temporary folder; a start that cannot write
// it just goes without), an API restarted on the same host, as a deploy or a crash replaces it, reuses the
// code compiled by its predecessor: about 0.25 s less there. It has to be on before the modules load, hence
// this entry of its own, as the worker's (temporal/worker-main.ts).
enableCompileCacheForThreads();
await import('./server-process.js');
