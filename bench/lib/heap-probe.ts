import { createWriteStream } from 'node:fs';

/** process.memoryUsage() of the probed process, in bytes. */
export interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export interface HeapProbe {
  /** process.memoryUsage() as it is now, garbage included. */
  now(): Promise<MemoryUsage>;
  /** Forces a full garbage collection in the process, then reads its process.memoryUsage(): what is still reachable. */
  afterGc(): Promise<MemoryUsage>;
  /** Writes a heap snapshot (open it in Chrome DevTools, Memory tab; compare two to see what grew). */
  snapshot(path: string): Promise<void>;
  close(): void;
}

interface Reply {
  id?: number;
  method?: string;
  params?: { chunk?: string };
  result?: { result?: { value?: unknown } };
  error?: { message: string };
}

/**
 * Attaches to a Node process started with `--inspect=127.0.0.1:<port>` over the inspector protocol
 * (Node's global WebSocket). Nothing in the service changes: the GC and the reading happen from outside.
 */
export async function attachHeapProbe(inspectPort: number): Promise<HeapProbe> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise<void>((open, fail) => {
    socket.addEventListener('open', () => open(), { once: true });
    socket.addEventListener('error', () => fail(new Error(`inspector on port ${inspectPort}: cannot connect`)), { once: true });
  });
  let nextId = 0;
  const pending = new Map<number, { done: (r: Reply) => void; fail: (e: Error) => void }>();
  let onChunk: ((chunk: string) => void) | undefined;
  socket.addEventListener('message', (event) => {
    const reply = JSON.parse(String(event.data)) as Reply;
    if (reply.method === 'HeapProfiler.addHeapSnapshotChunk') onChunk?.(reply.params!.chunk!);
    if (reply.id === undefined) return;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error) waiter?.fail(new Error(`inspector: ${reply.error.message}`));
    else waiter?.done(reply);
  });
  socket.addEventListener('close', () => {
    for (const w of pending.values()) w.fail(new Error('inspector connection closed'));
    pending.clear();
  });
  const send = (method: string, params: object = {}) =>
    new Promise<Reply>((done, fail) => {
      const id = ++nextId;
      pending.set(id, { done, fail });
      socket.send(JSON.stringify({ id, method, params }));
    });

  const now = async () => {
    const reply = await send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    return JSON.parse(String(reply.result!.result!.value)) as MemoryUsage;
  };
  return {
    now,
    async afterGc() {
      // Twice: objects freed by the first pass (weak references, finalizers) are collected by the second.
      await send('HeapProfiler.collectGarbage');
      await send('HeapProfiler.collectGarbage');
      return now();
    },
    async snapshot(path) {
      const out = createWriteStream(path);
      onChunk = (chunk) => out.write(chunk);
      try {
        await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      } finally {
        onChunk = undefined;
        await new Promise<void>((done) => out.end(done));
      }
    },
    close() {
      socket.close();
    },
  };
}
