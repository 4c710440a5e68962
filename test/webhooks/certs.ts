import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Real HTTPS receivers on 127.0.0.1, port 0, with certificates made by openssl at test time: a test
// CA and a leaf for 127.0.0.1 that it signs (trusted by the worker's Agent), and a self-signed leaf
// nobody trusts (the bad certificate).

export interface TestCerts {
  ca: string;
  key: string;
  cert: string;
  badKey: string;
  badCert: string;
}

let certs: TestCerts | undefined;

export function testCerts(): TestCerts {
  if (certs) return certs;
  const dir = mkdtempSync(join(tmpdir(), 'paylinks-certs-'));
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe', timeout: 30_000 });
  try {
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=paylinks test CA',
    );
    ssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      f('leaf.key'),
      '-out',
      f('leaf.csr'),
      '-subj',
      '/CN=127.0.0.1',
    );
    writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    ssl(
      'x509',
      '-req',
      '-in',
      f('leaf.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('leaf.pem'),
      '-days',
      '2',
      '-extfile',
      f('ext.cnf'),
    );
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      f('bad.key'),
      '-out',
      f('bad.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    );
    certs = {
      ca: readFileSync(f('ca.pem'), 'utf8'),
      key: readFileSync(f('leaf.key'), 'utf8'),
      cert: readFileSync(f('leaf.pem'), 'utf8'),
      badKey: readFileSync(f('bad.key'), 'utf8'),
      badCert: readFileSync(f('bad.pem'), 'utf8'),
    };
    return certs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
