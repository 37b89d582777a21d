// A free TCP port on loopback for a listener we start (the Temporal SDK's metrics page, dev servers, tests):
// production code needs it too, so it lives here and not with the embedded PostgreSQL in dev/.
import { createServer } from 'node:net';

/** A free TCP port on loopback, or the preferred one when it is free. */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((done) => {
      const server = createServer();
      server.once('error', () => done(null));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => done(typeof address === 'object' && address ? address.port : null));
      });
    });
  return (preferred && (await tryPort(preferred))) || (await tryPort(0))!;
}
