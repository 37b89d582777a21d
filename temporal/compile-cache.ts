import { enableCompileCache } from 'node:module';

/**
 * Turns on Node's compile cache for this process and for the worker threads it starts later, in `directory`
 * (default: the system's temporary folder); a process that cannot write there just goes without. The call
 * alone covers this thread only: a worker thread (the Temporal SDK runs workflows in one, which loads about a
 * second of modules before its first workflow task) takes the cache from NODE_COMPILE_CACHE, so it is set to
 * the folder the call chose.
 */
export function enableCompileCacheForThreads(directory?: string): string | undefined {
  const { directory: chosen } = enableCompileCache(directory);
  if (chosen) process.env.NODE_COMPILE_CACHE = chosen;
  return chosen;
}
