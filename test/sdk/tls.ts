import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { createDeliveryAgent } from '../../src/webhooks/delivery/send.js';

// HTTPS for the example receivers: a self-signed certificate for 127.0.0.1 made by openssl at test
// time, and a delivery Agent that trusts exactly it (besides the system roots), as the webhook tests
// do with their test CA.

let made: { key: string; cert: string } | undefined;

export function receiverCert(): { key: string; cert: string } {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'paylinks-sdk-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'pipe', timeout: 30_000 });
    made = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function trustingReceiverAgent(): Agent {
  return createDeliveryAgent({ publicOnly: false, tls: { ca: receiverCert().cert } });
}
