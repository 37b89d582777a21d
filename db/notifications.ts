import pg from 'pg';

/**
 * The process's one LISTEN connection to PostgreSQL: the outbox relay (channel `outbox`) and the running
 * lanes and dispatchers (channel `lane`) subscribe to it, so a worker holds one listening connection
 * however many channels it follows. Best effort: while it cannot listen (PostgreSQL restarting) it tries
 * again every 2 s, and what it misses meanwhile its subscribers find by polling.
 */
export class PgNotifications {
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private client: pg.Client | undefined;
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly onListenError: (err: Error) => void = () => {},
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.listen();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.client?.end().catch(() => undefined);
    await this.loop;
  }

  /** Calls `handle` with the payload of every notification on `channel` until the returned function is called. */
  subscribe(channel: string, handle: (payload: string) => void): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // Connected already: listen on the new channel too (a reconnect listens on every channel).
      this.client?.query(`listen ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
    }
    set.add(handle);
    return () => set.delete(handle);
  }

  private async listen(): Promise<void> {
    while (this.running) {
      try {
        const client = new pg.Client({ connectionString: this.databaseUrl, client_encoding: 'UTF8' });
        client.on('notification', (n) => {
          for (const handle of this.handlers.get(n.channel) ?? []) handle(n.payload ?? '');
        });
        const ended = new Promise<void>((done) => {
          client.on('error', () => done());
          client.on('end', () => done());
        });
        await client.connect();
        this.client = client;
        for (const channel of this.handlers.keys()) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
        if (!this.running) await client.end();
        await ended;
      } catch (err) {
        if (this.running) this.onListenError(err as Error);
      }
      this.client = undefined;
      if (this.running) await new Promise((r) => setTimeout(r, 2000));
    }
  }
}
