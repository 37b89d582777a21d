// A dev server that a test stops and starts again keeps its port only if no client can take it meanwhile:
// restartablePort() must give a free port below the kernel's ephemeral range, where no outgoing
// connection is ever given its local port (dev/temporal/dev-server.ts).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { restartablePort } from '../../dev/temporal/dev-server.js';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('restartablePort', () => {
  it('gives free ports below the ephemeral range, each one a listener can take', async () => {
    for (let i = 0; i < 5; i++) {
      const port = await restartablePort();
      expect(port).toBeGreaterThanOrEqual(1024);
      expect(port).toBeLessThan(ephemeralStart);
      const server = createServer();
      await new Promise<void>((done, fail) => server.once('error', fail).listen(port, '127.0.0.1', () => done()));
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
