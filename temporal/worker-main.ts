// Process entry of the Temporal worker and outbox relay alone (`npm run start:worker`).
import { enableCompileCache } from 'node:module';

// Loading the worker's modules is most of its start (about 0.7 s of the time to its first delivery). With
// Node's compile cache (in the system's temporary folder; a start that cannot write it just goes without),
// a restarted worker, such as one replaced by a deploy, reuses the code compiled by its predecessor. It has
// to be on before the modules load, hence this entry of its own.
const compileCache = enableCompileCache();
// Threads started later (the Temporal SDK runs workflows in worker threads, which load ~1 s of modules
// before the first workflow task) do not inherit the cache from this call, only from the environment.
if (compileCache.directory) process.env.NODE_COMPILE_CACHE = compileCache.directory;
await import('./worker-process.js');
