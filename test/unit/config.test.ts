import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('configuration (§Running the service)', () => {
  it('has the documented defaults', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      databaseUrl: null,
      dataDir: './.paylinks',
      port: 8080,
      host: '127.0.0.1',
      publicBaseUrl: 'http://127.0.0.1:8080',
      env: 'development',
      sandbox: true,
      logLevel: 'info',
      webhookMaxInFlightPerEndpoint: 10,
      workerMaxInFlight: 256,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads the worker process limit, within its bounds', () => {
    expect(parseConfig({ PAYLINKS_WORKER_MAX_IN_FLIGHT: '64' }).workerMaxInFlight).toBe(64);
    expect(() => parseConfig({ PAYLINKS_WORKER_MAX_IN_FLIGHT: '0' })).toThrow(/PAYLINKS_WORKER_MAX_IN_FLIGHT/);
  });

  it('derives PUBLIC_BASE_URL from HOST and PORT, and drops a trailing slash', () => {
    expect(parseConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicBaseUrl).toBe('http://0.0.0.0:9000');
    expect(parseConfig({ PUBLIC_BASE_URL: 'https://pay.example.is/' }).publicBaseUrl).toBe('https://pay.example.is');
  });

  it('turns the sandbox off by default in production, and lets it be set', () => {
    const key = 'ab'.repeat(32); // production needs PAYLINKS_SECRET_KEY (§Hardening)
    expect(parseConfig({ PAYLINKS_ENV: 'production', PAYLINKS_SECRET_KEY: key }).sandbox).toBe(false);
    expect(parseConfig({ PAYLINKS_ENV: 'production', PAYLINKS_SECRET_KEY: key, PAYLINKS_SANDBOX: 'on' }).sandbox).toBe(true);
    expect(parseConfig({ PAYLINKS_SANDBOX: 'off' }).sandbox).toBe(false);
  });

  it('names every bad variable at once', () => {
    let err: unknown;
    try {
      parseConfig({
        PORT: 'eighty',
        PAYLINKS_ENV: 'staging',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://x',
        PUBLIC_BASE_URL: 'ftp://x',
        PAYLINKS_SANDBOX: 'maybe',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'PAYLINKS_ENV', 'LOG_LEVEL', 'DATABASE_URL', 'PUBLIC_BASE_URL', 'PAYLINKS_SANDBOX']) {
      expect(problems).toContain(name);
    }
    expect((err as ConfigError).problems).toHaveLength(6);
  });

  it('never echoes a database password in its message', () => {
    expect(() => parseConfig({ DATABASE_URL: 'mysql://u:s3cret@h/db' })).toThrow(ConfigError);
    try {
      parseConfig({ DATABASE_URL: 'mysql://u:s3cret@h/db' });
    } catch (e) {
      expect((e as Error).message).not.toContain('s3cret');
    }
  });

  it('reads the metrics token and listener, refusing bad ones without echoing the token', () => {
    expect(parseConfig({})).toMatchObject({ metricsToken: null, metricsListen: null });
    const c = parseConfig({ PAYLINKS_METRICS_TOKEN: 'a-long-enough-token-1234', PAYLINKS_METRICS_LISTEN: '127.0.0.1:9464' });
    expect(c).toMatchObject({ metricsToken: 'a-long-enough-token-1234', metricsListen: { host: '127.0.0.1', port: 9464 } });
    expect(parseConfig({ PAYLINKS_METRICS_LISTEN: '[::1]:0' }).metricsListen).toEqual({ host: '::1', port: 0 });
    let err: unknown;
    try {
      parseConfig({ PAYLINKS_METRICS_TOKEN: 'short secret', PAYLINKS_METRICS_LISTEN: '9464' });
    } catch (e) {
      err = e;
    }
    const problems = (err as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/PAYLINKS_METRICS_TOKEN[\s\S]*PAYLINKS_METRICS_LISTEN/);
    expect(problems.join('\n')).not.toContain('short secret');
  });

  it('trusts no proxy by default, and reads a list of proxy addresses and ranges', () => {
    expect(parseConfig({}).trustProxy).toBeNull();
    expect(parseConfig({ PAYLINKS_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8' }).trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
    for (const bad of ['on', '10.0.0.0/33', '10.0.0.1/8/8', 'proxy.internal', '127.0.0.1,', 'fd00::/129']) {
      expect(() => parseConfig({ PAYLINKS_TRUST_PROXY: bad }), bad).toThrow(/PAYLINKS_TRUST_PROXY/);
    }
  });
});
