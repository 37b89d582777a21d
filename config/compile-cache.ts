import { constants, enableCompileCache } from 'node:module';

/**
 * Turns on Node's compile cache for this process and for the worker threads it starts later, in `directory`
 * (default: the system's temporary folder); a process that cannot write there just goes without. The call
 * alone covers this thread only: a worker thread (the Temporal SDK runs workflows in one, which loads about a
 * second of modules before its first workflow task) takes the cache from NODE_COMPILE_CACHE, so it is set to
 * the folder the call chose. An operator's own NODE_COMPILE_CACHE is left as it is: the threads read it too.
 */
export function enableCompileCacheForThreads(directory?: string): void {
  const result = enableCompileCache(directory);
  // Only a cache this call turned on: when the environment had turned it on, `directory` is the folder of
  // Node's version inside the operator's, which a thread would nest once more.
  if (result.status === constants.compileCacheStatus.ENABLED && result.directory) process.env.NODE_COMPILE_CACHE = result.directory;
}
