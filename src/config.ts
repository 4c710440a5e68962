import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { join } from 'node:path';

// The one place that reads process.env (docs/style.md, Configuration is read once). Parsed once, typed, frozen (§Running the service).

type Environment = 'development' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** PostgreSQL connection string; null means the embedded PGlite database in dataDir. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: string;
  readonly env: Environment;
  readonly sandbox: boolean;
  readonly logLevel: LogLevel;
  /** Per-endpoint limit on webhook attempts in flight, across every worker process. */
  readonly webhookMaxInFlightPerEndpoint: number;
  /** Webhook attempts one worker process keeps in flight, all endpoints together. */
  readonly workerMaxInFlight: number;
  /** How long a claimed delivery stays leased to one worker before another may take it over. */
  readonly deliveryLeaseMs: number;
  /** Finished deliveries and their attempts older than this many days are removed (0: kept for ever). */
  readonly deliveryRetentionDays: number;
  /** A webhook whose deliveries have failed this many days with no success in between is disabled (0: never). */
  readonly webhookDisableAfterDays: number;
  /** Size of the PostgreSQL pool (PGlite always has one connection). */
  readonly databasePoolSize: number;
  /**
   * How long a process may remember a resolved API key (ms). 0, the default, looks every key up on
   * every request, so a revoked key is refused at once (§Authentication); a few seconds saves a database round
   * trip per request at the price of that much delay on revocation.
   */
  readonly keyCacheMs: number;
  /** Requests per second allowed to one API key (token bucket in each process); 0: no limit. */
  readonly rateLimitPerSecond: number;
  /** How many requests one key may send at once before the rate applies (the bucket's size). */
  readonly rateLimitBurst: number;
  /**
   * The 32-byte key (AES-256-GCM) that encrypts webhook secrets and stored idempotent responses at
   * rest. Required in production; in development a fixed, publicly known fallback is used.
   */
  readonly secretKey: Buffer;
  /** True when secretKey is the development fallback (nothing it protects is secret). */
  readonly secretKeyIsFallback: boolean;
  /**
   * Bearer token that GET /metrics on the public listener requires. Without one, /metrics is open in
   * development and absent (404) in production.
   */
  readonly metricsToken: string | null;
  /** A portal session unused this long ends (minutes). */
  readonly portalIdleMinutes: number;
  /** A portal session ends this long after sign-in, however it is used (hours). */
  readonly portalSessionHours: number;
  /**
   * How often a `paylinks listen` stream carries a keep-alive comment (ms): what lets the CLI tell a
   * quiet stream from a dead connection (it gives one up after 45 s of nothing by default).
   */
  readonly listenHeartbeatMs: number;
  /** A separate listener for /metrics only (e.g. 127.0.0.1:9464), for serve and worker alike; null: none. */
  readonly metricsListen: { host: string; port: number } | null;
  /**
   * The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (addresses and CIDR
   * ranges, given to Fastify's trustProxy); null: none, the socket's address is the client's.
   */
  readonly trustProxy: readonly string[] | null;
  /**
   * An authorisation made with manual capture or as a pre-authorisation expires this many days after
   * it was made: what is not captured by then can no longer be captured or adjusted (docs/api.md).
   */
  readonly authorisationExpiryDays: number;
  /**
   * The sandbox acquirer's daily settlement cut-off, as minutes after midnight UTC (0: 00:00 UTC):
   * what was captured or refunded before it is settled in that day's batches (docs/api.md, Settlements).
   */
  readonly settlementCutoffMinutes: number;
  /**
   * How long the simulated acquirer takes to answer each call (authorisation, 3-D Secure completion,
   * saved-card charge, modification), in milliseconds: 0 answers at once; a real acquirer takes
   * 200–2000 ms for an authorisation. For tests and benchmarks of payments at a real pace.
   */
  readonly sandboxAcquirerLatencyMs: number;
  /**
   * The SMTP server the e-mails go through (smtp:// or smtps://, with the user and password in the URL);
   * null: they are written as .eml files into mailDir instead (development). Never logged.
   */
  readonly smtpUrl: string | null;
  /** The From of every e-mail, an address or `Name <address>`. */
  readonly mailFrom: string;
  /** Where the e-mails are written when there is no SMTP server (dataDir/mail). */
  readonly mailDir: string;
  /** How long a sender holds a claimed e-mail before another may take it over (docs/mail.md). */
  readonly mailLeaseMs: number;
  /** How many receipts a link's pages send in an hour: to the addresses typed from one network address, and in all (docs/mail.md). */
  readonly receiptsPerHour: { readonly perAddress: number; readonly perLink: number };
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The development fallback of PAYLINKS_SECRET_KEY: derived from a published sentence, so it protects
 * nothing. It exists so that `npm start` works with no configuration; production refuses to start
 * without a real key.
 */
export const DEVELOPMENT_SECRET_KEY = createHash('sha256')
  .update('paylinks development secret key - NOT SECRET - set PAYLINKS_SECRET_KEY in production')
  .digest();

/** An address, or a CIDR range whose prefix fits its family (10.0.0.0/8, fd00::/8). */
function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** 32 bytes given as 64 hex characters or as base64 (44 characters with padding, 43 without). */
function parseSecretKey(raw: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const b = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return b.length === 32 ? b : undefined;
  }
  return undefined;
}

/** An address, or a display name and the address in angle brackets: one line, nothing a header could be split with. */
const MAIL_FROM = /^(?:[^<>\r\n"]{1,100} <[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/;

/** The host of the public base URL when it looks like a domain, for the default From; else a name that is no one's. */
function mailDomainOf(publicBaseUrl: string): string {
  try {
    const host = new URL(publicBaseUrl).hostname;
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) && !/^[\d.]+$/.test(host) ? host : 'paylinks.invalid';
  } catch {
    return 'paylinks.invalid';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Readonly<Record<string, string | undefined>>;

/** Parses the environment; throws ConfigError naming every bad variable at once. */
export function parseConfig(env: Env): Config {
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)}: must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };

  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name}=${JSON.stringify(raw)}: must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  };

  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const v = raw.toLowerCase();
    if (['1', 'true', 'on', 'yes'].includes(v)) return true;
    if (['0', 'false', 'off', 'no'].includes(v)) return false;
    problems.push(`${name}=${JSON.stringify(raw)}: must be on/off, true/false, yes/no or 1/0`);
    return fallback;
  };

  let databaseUrl: string | null = value('DATABASE_URL') ?? null;
  if (databaseUrl !== null) {
    // The URL itself may carry a password: never echo it.
    try {
      const u = new URL(databaseUrl);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
        problems.push('DATABASE_URL: must be a postgres:// or postgresql:// URL');
        databaseUrl = null;
      }
    } catch {
      problems.push('DATABASE_URL: is not a valid URL');
      databaseUrl = null;
    }
  }

  const dataDir = value('PAYLINKS_DATA_DIR') ?? './.paylinks';
  const port = integer('PORT', 8080, 0, 65535);
  const host = value('HOST') ?? '127.0.0.1';
  const envName = oneOf<Environment>('PAYLINKS_ENV', ['development', 'production'], 'development');
  const sandbox = boolean('PAYLINKS_SANDBOX', envName === 'development');
  const logLevel = oneOf<LogLevel>('LOG_LEVEL', LOG_LEVELS, 'info');
  const webhookMaxInFlightPerEndpoint = integer('PAYLINKS_WEBHOOK_MAX_IN_FLIGHT', 10, 1, 1000);
  const workerMaxInFlight = integer('PAYLINKS_WORKER_MAX_IN_FLIGHT', 256, 1, 10_000);
  const deliveryLeaseMs = integer('PAYLINKS_DELIVERY_LEASE_MS', 3_000, 1_000, 600_000);
  const deliveryRetentionDays = integer('PAYLINKS_DELIVERY_RETENTION_DAYS', 30, 0, 3650);
  const webhookDisableAfterDays = integer('PAYLINKS_WEBHOOK_DISABLE_AFTER_DAYS', 5, 0, 365);
  const databasePoolSize = integer('PAYLINKS_DB_POOL_SIZE', 10, 1, 200);
  const keyCacheMs = integer('PAYLINKS_KEY_CACHE_MS', 0, 0, 60_000);
  const sandboxAcquirerLatencyMs = integer('PAYLINKS_SANDBOX_ACQUIRER_LATENCY_MS', 0, 0, 60_000);
  // The default is a ceiling against a runaway integration, far above one key's honest load: the
  // benchmark's single key reaches about 10,000 req/s on a 2-core machine and must not be throttled.
  // Internet-facing deployments set it lower.
  const rateLimitPerSecond = integer('PAYLINKS_RATE_LIMIT_PER_SECOND', 25_000, 0, 1_000_000);
  const rateLimitBurst = integer('PAYLINKS_RATE_LIMIT_BURST', Math.max(1, rateLimitPerSecond * 2), 1, 10_000_000);

  const listenHeartbeatMs = integer('PAYLINKS_LISTEN_HEARTBEAT_MS', 15_000, 100, 60_000);

  const portalIdleMinutes = integer('PAYLINKS_PORTAL_IDLE_MINUTES', 60, 5, 24 * 60);
  const portalSessionHours = integer('PAYLINKS_PORTAL_SESSION_HOURS', 12, 1, 24 * 30);
  // Seven days is what card schemes commonly give an uncaptured authorisation; 30 is the longest any does.
  const authorisationExpiryDays = integer('PAYLINKS_AUTHORISATION_EXPIRY_DAYS', 7, 1, 30);

  let secretKey: Buffer = DEVELOPMENT_SECRET_KEY;
  let secretKeyIsFallback = true;
  const rawSecret = value('PAYLINKS_SECRET_KEY');
  if (rawSecret !== undefined) {
    // Never echo the value: it is the key to every webhook secret.
    const parsed = parseSecretKey(rawSecret);
    if (parsed === undefined) problems.push('PAYLINKS_SECRET_KEY: must be 32 bytes, as 64 hex characters or as base64');
    else if (parsed.equals(DEVELOPMENT_SECRET_KEY)) problems.push('PAYLINKS_SECRET_KEY: is the published development key; generate one (openssl rand -hex 32)');
    else {
      secretKey = parsed;
      secretKeyIsFallback = false;
    }
  } else if (envName === 'production') {
    problems.push('PAYLINKS_SECRET_KEY: is required when PAYLINKS_ENV=production (32 bytes as 64 hex characters or base64; openssl rand -hex 32)');
  }

  let metricsToken: string | null = value('PAYLINKS_METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    // Never echo it: it is a secret.
    problems.push('PAYLINKS_METRICS_TOKEN: must be 16 to 256 visible ASCII characters (openssl rand -hex 24)');
    metricsToken = null;
  }
  let metricsListen: { host: string; port: number } | null = null;
  const rawListen = value('PAYLINKS_METRICS_LISTEN');
  if (rawListen !== undefined) {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(rawListen);
    const port = m ? Number(m[3]) : NaN;
    if (!m || port > 65535) problems.push(`PAYLINKS_METRICS_LISTEN=${JSON.stringify(rawListen)}: must be host:port, e.g. 127.0.0.1:9464`);
    else metricsListen = { host: (m[1] ?? m[2]) as string, port };
  }

  let trustProxy: string[] | null = null;
  const rawTrust = value('PAYLINKS_TRUST_PROXY');
  if (rawTrust !== undefined) {
    const entries = rawTrust.split(',').map((e) => e.trim());
    const bad = entries.filter((e) => !isAddressOrRange(e));
    if (bad.length > 0) {
      problems.push(
        `PAYLINKS_TRUST_PROXY=${JSON.stringify(rawTrust)}: must be a comma-separated list of addresses or CIDR ranges, e.g. 127.0.0.1,10.0.0.0/8 (not ${bad.map((e) => JSON.stringify(e)).join(', ')})`,
      );
    } else trustProxy = entries;
  }

  let settlementCutoffMinutes = 0;
  const rawCutoff = value('PAYLINKS_SETTLEMENT_CUTOFF');
  if (rawCutoff !== undefined) {
    const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(rawCutoff);
    if (!m) problems.push(`PAYLINKS_SETTLEMENT_CUTOFF=${JSON.stringify(rawCutoff)}: must be a time of day in UTC as HH:MM, e.g. 00:00 or 18:30`);
    else settlementCutoffMinutes = Number(m[1]) * 60 + Number(m[2]);
  }

  let smtpUrl: string | null = value('PAYLINKS_SMTP_URL') ?? null;
  if (smtpUrl !== null) {
    // The URL carries the SMTP password: never echo it.
    try {
      const u = new URL(smtpUrl);
      if ((u.protocol !== 'smtp:' && u.protocol !== 'smtps:') || u.hostname === '') throw new Error('scheme');
    } catch {
      problems.push('PAYLINKS_SMTP_URL: must be an smtp:// or smtps:// URL with a host, e.g. smtp://user:password@mail.example.com:587');
      smtpUrl = null;
    }
  }
  const rawFrom = value('PAYLINKS_MAIL_FROM');
  if (rawFrom !== undefined && !MAIL_FROM.test(rawFrom)) {
    problems.push(`PAYLINKS_MAIL_FROM=${JSON.stringify(rawFrom)}: must be an address or Name <address>, e.g. Paylinks <receipts@example.com>`);
  } else if (rawFrom === undefined && smtpUrl !== null && envName === 'production') {
    problems.push('PAYLINKS_MAIL_FROM: is required with PAYLINKS_SMTP_URL when PAYLINKS_ENV=production (e.g. Paylinks <receipts@example.com>)');
  }
  const mailLeaseMs = integer('PAYLINKS_MAIL_LEASE_MS', 120_000, 1_000, 3_600_000);
  const receiptsPerHour = {
    perAddress: integer('PAYLINKS_RECEIPTS_PER_HOUR_PER_ADDRESS', 10, 0, 1_000_000),
    perLink: integer('PAYLINKS_RECEIPTS_PER_HOUR_PER_LINK', 1_000, 0, 1_000_000),
  };

  const hostForUrl = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let publicBaseUrl = value('PUBLIC_BASE_URL') ?? `http://${hostForUrl}:${port}`;
  try {
    const u = new URL(publicBaseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    if (u.search !== '' || u.hash !== '') throw new Error('query');
    publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_BASE_URL=${JSON.stringify(publicBaseUrl)}: must be an absolute http(s) URL without query or fragment`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    databaseUrl,
    dataDir,
    port,
    host,
    publicBaseUrl,
    env: envName,
    sandbox,
    logLevel,
    webhookMaxInFlightPerEndpoint,
    workerMaxInFlight,
    deliveryLeaseMs,
    deliveryRetentionDays,
    webhookDisableAfterDays,
    databasePoolSize,
    keyCacheMs,
    rateLimitPerSecond,
    rateLimitBurst,
    secretKey,
    secretKeyIsFallback,
    metricsToken,
    metricsListen,
    trustProxy,
    listenHeartbeatMs,
    portalIdleMinutes,
    portalSessionHours,
    authorisationExpiryDays,
    settlementCutoffMinutes,
    sandboxAcquirerLatencyMs,
    smtpUrl,
    mailFrom: rawFrom !== undefined && MAIL_FROM.test(rawFrom) ? rawFrom : `Paylinks <noreply@${mailDomainOf(publicBaseUrl)}>`,
    mailDir: join(dataDir, 'mail'),
    mailLeaseMs,
    receiptsPerHour,
  });
}
