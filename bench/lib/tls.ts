import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** A CA made for one bench run and a server certificate it signed for localhost and 127.0.0.1 (PEM). */
export interface TestTls {
  /** The CA certificate's file: given to the worker as NODE_EXTRA_CA_CERTS. */
  caFile: string;
  ca: string;
  key: string;
  cert: string;
}

/**
 * Makes the CA and the localhost certificate with openssl into `dir` (they live for this run only; nothing
 * outside the bench trusts them). node:crypto makes keys but not X.509 certificates, hence openssl.
 */
export function makeTestTls(dir: string): TestTls {
  mkdirSync(dir, { recursive: true });
  const f = (name: string) => resolve(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Bench Test CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  writeFileSync(f('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n');
  openssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('server.ext'),
    '-out',
    f('server.pem'),
  );
  return {
    caFile: f('ca.pem'),
    ca: readFileSync(f('ca.pem'), 'utf8'),
    key: readFileSync(f('server.key'), 'utf8'),
    cert: readFileSync(f('server.pem'), 'utf8'),
  };
}
