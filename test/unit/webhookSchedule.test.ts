import { describe, expect, it } from 'vitest';
import { afterAttempt, MAX_ATTEMPTS } from '../../src/webhooks/delivery/schedule.js';
import { checkProductionAddress, checkUrlShape, isPublicAddress } from '../../src/webhooks/addressRules.js';
import { classifyError } from '../../src/webhooks/delivery/send.js';

describe('retry schedule (interface §8)', () => {
  it('schedules 1 min, 10 min, 1 h, 6 h after each failed attempt, and fails after the fifth', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const at = (n: number) => afterAttempt(n, t0, false);
    expect(at(1)).toEqual({ state: 'Pending', nextAttemptAt: new Date(t0.getTime() + 60_000) });
    expect(at(2).nextAttemptAt).toEqual(new Date(t0.getTime() + 600_000));
    expect(at(3).nextAttemptAt).toEqual(new Date(t0.getTime() + 3_600_000));
    expect(at(4).nextAttemptAt).toEqual(new Date(t0.getTime() + 21_600_000));
    expect(at(5)).toEqual({ state: 'Failed', nextAttemptAt: null });
    expect(MAX_ATTEMPTS).toBe(5);
  });

  it('stops at the first success', () => {
    for (let n = 1; n <= 5; n++) expect(afterAttempt(n, new Date(), true)).toEqual({ state: 'Delivered', nextAttemptAt: null });
  });
});

describe('webhook address rules (§Webhooks, interface §6.5)', () => {
  it('accepts only absolute https URLs', () => {
    expect(checkUrlShape('https://example.com/hook')).toBeNull();
    expect(checkUrlShape('http://example.com/hook')?.code).toBe('FORMAT');
    expect(checkUrlShape('/hook')?.code).toBe('FORMAT');
    expect(checkUrlShape('https://user:pw@example.com/')?.code).toBe('FORMAT');
    expect(checkUrlShape('ftp://example.com')?.code).toBe('FORMAT');
    expect(checkUrlShape('http://127.0.0.1:3000/hook')?.code).toBe('FORMAT');
  });

  it('in development also accepts http on localhost and loopback addresses, and nowhere else', () => {
    const dev = { allowLocalHttp: true };
    for (const url of [
      'http://localhost:3000/hook',
      'http://LOCALHOST/hook',
      'http://127.0.0.1:3000/hook',
      'http://127.1.2.3/hook',
      'http://[::1]:3000/hook',
      'https://example.com/hook',
    ]) {
      expect(checkUrlShape(url, dev), url).toBeNull();
    }
    for (const url of [
      'http://example.com/hook',
      'http://10.0.0.1/hook',
      'http://localhost.example.com/hook',
      'http://128.0.0.1/hook',
      'http://[::2]/hook',
      'ftp://localhost/x',
      'http://user:pw@localhost/x',
    ]) {
      expect(checkUrlShape(url, dev)?.code, url).toBe('FORMAT');
    }
  });

  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it('in production refuses internal names and any internal address a name resolves to (DNS rebinding)', async () => {
    const resolver = async (host: string) =>
      host === 'rebind.example.com' ? ['93.184.216.34', '127.0.0.1'] : host === 'good.example.com' ? ['93.184.216.34'] : [];
    expect(await checkProductionAddress('https://good.example.com/h', resolver)).toBeNull();
    expect((await checkProductionAddress('https://rebind.example.com/h', resolver))?.code).toBe('ADDRESS_NOT_ALLOWED');
    expect((await checkProductionAddress('https://localhost/h', resolver))?.code).toBe('ADDRESS_NOT_ALLOWED');
    expect((await checkProductionAddress('https://[::1]/h', resolver))?.code).toBe('ADDRESS_NOT_ALLOWED');
    expect((await checkProductionAddress('https://127.0.0.1:8443/h', resolver))?.code).toBe('ADDRESS_NOT_ALLOWED');
    expect((await checkProductionAddress('https://nowhere.example.com/h', resolver))?.code).toBe('UNRESOLVABLE');
    expect(await checkProductionAddress('https://93.184.216.34/h', resolver)).toBeNull();
  });

  it('tells TLS failures from connection errors', () => {
    expect(classifyError(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('tls');
    expect(classifyError(Object.assign(new Error('x'), { cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' } }))).toBe('tls');
    expect(classifyError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('connection');
  });
});
