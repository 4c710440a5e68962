import { createCipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { fmt } from './lib.js';

// What a key's form costs node:crypto on the Node line this runs on (docs/performance.md, "On the
// maintained Node lines"): an HMAC-SHA256 of a delivery-sized message and an AES-256-GCM encryption
// of a short secret, each under the key as a Buffer, as a KeyObject and (HMAC) as its hex text.
// Run it under each line: `scripts/with-node.sh 24 npx tsx bench/keys.ts`. Best of five rounds.

const N = Number(process.env.BENCH_KEYS_N ?? 100_000);
const bytes = randomBytes(32);
const hex = bytes.toString('hex');
const secret: KeyObject = createSecretKey(bytes);
const body = Buffer.alloc(450, 'x');
const iv = randomBytes(12);

function hmacs(key: () => Parameters<typeof createHmac>[1], options?: { encoding: 'hex' }): number {
  let n = 0;
  for (let i = 0; i < N; i++) n += createHmac('sha256', key(), options).update('dlv_1.1764590400.', 'utf8').update(body).digest('base64').length;
  return n;
}

function seals(key: Buffer | KeyObject): number {
  let n = 0;
  for (let i = 0; i < N; i++) {
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    n += cipher.update('whk_0123456789abcdef0123456789abcdef', 'utf8').length + cipher.final().length;
  }
  return n;
}

const cases: [string, () => number][] = [
  ['HMAC-SHA256, key as a Buffer', () => hmacs(() => bytes)],
  ['HMAC-SHA256, key as a KeyObject', () => hmacs(() => secret)],
  ['HMAC-SHA256, key as hex text', () => hmacs(() => hex, { encoding: 'hex' })],
  ['AES-256-GCM, key as a Buffer', () => seals(bytes)],
  ['AES-256-GCM, key as a KeyObject', () => seals(secret)],
];
console.log(`Node ${process.version}, ${fmt(N)} calls a round, best of five`);
for (const [name, run] of cases) {
  run();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    run();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000 / N);
  }
  console.log(`${name.padEnd(34)} ${fmt(best, 2)} µs a call`);
}
