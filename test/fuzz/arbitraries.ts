import fc from 'fast-check';

// Hostile input for the route fuzzers (§Hardening): values of every JSON type, the edges of numbers and
// strings, and raw bodies no JSON encoder would produce.

const oddStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u2066',
  '💳💳',
  'ﬀ',
  '../../etc/passwd',
  '%00',
  '%ZZ',
  '<script>alert(1)</script>',
  "'; DROP TABLE payment_links;--",
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'true',
  '1e999',
  '-0',
  '0x10',
  '１２３', // full-width digits
  '4242424242424242',
  'https://127.0.0.1/x',
  'javascript:alert(1)',
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...oddStrings) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 300_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 20_000 }).map((n) => 'é'.repeat(n)) },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    -1,
    1.5,
    2 ** 31,
    2 ** 53,
    2 ** 53 + 2,
    1e21,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    100_000_000_000,
    100_000_000_001,
    1_000_000_000_000_000,
  ),
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** Any JSON value, a few levels deep, with hostile leaves and hostile keys. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('amount', 'Amount', 'AMOUNT', 'url', 'items', '__proto__', 'constructor')),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** A path inside a JSON value: the keys and indexes leading to each node. */
type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

type Mutation =
  | { kind: 'replace'; pick: number; value: unknown }
  | { kind: 'delete'; pick: number }
  | { kind: 'add'; pick: number; key: string; value: unknown }
  | { kind: 'recase'; pick: number }
  | { kind: 'wrap'; pick: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      pick: fc.nat(),
      key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('Amount', 'TYPE', 'extra', '__proto__')),
      value: hostileValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('recase' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap' as const), pick: fc.nat() }) },
);

function apply(root: unknown, m: Mutation): unknown {
  const paths = pathsOf(root);
  const path = paths[m.pick % paths.length] ?? [];
  if (path.length === 0) {
    if (m.kind === 'replace') return m.value;
    if (m.kind === 'wrap') return [root];
    if (m.kind === 'add' && root !== null && typeof root === 'object' && !Array.isArray(root)) return { ...root, [m.key]: m.value };
    return root;
  }
  const parent = path.slice(0, -1).reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], root) as
    Record<string | number, unknown> | unknown[];
  const last = path[path.length - 1] as string | number;
  const current = (parent as Record<string | number, unknown>)[last];
  switch (m.kind) {
    case 'replace':
      (parent as Record<string | number, unknown>)[last] = m.value;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Record<string, unknown>)[last];
      break;
    case 'add':
      if (current !== null && typeof current === 'object' && !Array.isArray(current)) (current as Record<string, unknown>)[m.key] = m.value;
      else if (Array.isArray(current)) current.push(m.value);
      break;
    case 'recase':
      if (!Array.isArray(parent) && typeof last === 'string') {
        (parent as Record<string, unknown>)[last.toUpperCase() === last ? last.toLowerCase() : last.toUpperCase()] = current;
      }
      break;
    case 'wrap':
      (parent as Record<string | number, unknown>)[last] = [current];
      break;
  }
  return root;
}

/** A valid body with one to three mutations applied. */
export function mutated(valid: unknown): fc.Arbitrary<unknown> {
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce((v, m) => apply(v, m), clone(valid)));
}

/** Raw body text: broken JSON, duplicate keys, huge or deep numbers and nesting, invalid UTF-8. */
export function rawBodies(valid: unknown): fc.Arbitrary<Buffer> {
  const text = JSON.stringify(valid ?? {});
  return fc.oneof(
    fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => Buffer.from(text.slice(0, n))),
    fc
      .tuple(fc.nat({ max: text.length }), fc.constantFrom('{', '}', '"', ',', ':', '\\', '[', ']', 'x', '\u0000', '\n'))
      .map(([i, c]) => Buffer.from(text.slice(0, i) + c + text.slice(i))),
    // duplicate keys: the same name twice with different values (JSON.parse keeps the last)
    fc.tuple(hostileValue).map(([v]) => Buffer.from(text.replace(/^\{/, `{"amount":${JSON.stringify(v) ?? 'null'},"amount":1,`))),
    fc
      .constantFrom(
        '{"amount":1e400}',
        '{"amount":123456789012345678901234567890}',
        '{"amount":-0}',
        '{"amount":1.0}',
        '{"amount":0.1e1}',
        '{"amount":"1e3"}',
        '{"amount":" 100"}',
        '{"amount":"0100"}',
      )
      .map((s) => Buffer.from(s)),
    fc.integer({ min: 50, max: 50_000 }).map((d) => Buffer.from(`${'['.repeat(d)}${']'.repeat(d)}`)),
    fc.integer({ min: 50, max: 50_000 }).map((d) => Buffer.from(`${'{"a":'.repeat(d)}1${'}'.repeat(d)}`)),
    // invalid UTF-8 inside a string value, and a lone byte order mark
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((bytes) => Buffer.concat([Buffer.from('{"description":"'), Buffer.from([0xc3, 0x28, 0xff, ...bytes]), Buffer.from('"}')])),
    fc.constant(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
    fc
      .constantFrom('', ' ', 'null', 'true', '0', '"x"', '[]', '[{}]', '{}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}')
      .map((s) => Buffer.from(s)),
    // just over the 1 MiB limit (§Status codes: 413)
    fc.constant(Buffer.from(`{"description":"${'x'.repeat(1024 * 1024)}"}`)),
  );
}

export const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json;;',
      'text/plain',
      'text/html',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/xml',
      'application/problem+json',
      'application/vnd.api+json',
      '*/*',
      'garbage',
      '',
    ),
  },
);

/** Percent-encodes the UTF-8 bytes of a string (a lone surrogate becomes U+FFFD's bytes). */
export function percentEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

/** A path segment: an existing id most of the time elsewhere; here the hostile ones. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  hostileString.filter((s) => s.length < 5_000).map(percentEncode),
  fc.constantFrom(
    '%',
    '%ZZ',
    '%00',
    '%2F',
    '..',
    '.',
    '%2e%2e',
    '%E0%A4%A',
    '%C3%28',
    '%FF%FE',
    'a'.repeat(201),
    'a'.repeat(5000),
    '%20',
    '+',
    ';x=1',
    'pl_%00',
  ),
);

/** A query string, from well-formed to nonsense. */
export const hostileQuery: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc
    .dictionary(
      fc.constantFrom('Page', 'PageSize', 'page', 'PAGESIZE', 'state', 'webhookId', 'payfacReference', 'correlationId', 'lang', 'p', 's', 'x'),
      hostileString.filter((s) => s.length < 3000),
      { maxKeys: 4 },
    )
    .map((d) => `?${new URLSearchParams(d).toString()}`),
  fc.constantFrom(
    '?Page=-1',
    '?PageSize=0',
    '?PageSize=101',
    '?PageSize=1e999',
    '?Page=99999999999999999999',
    '?Page=1&Page=2',
    '?page=1&PAGE=2',
    '?Page=%ZZ',
    '?Page[]=1',
    '?Page[a]=1',
    '?__proto__[x]=1',
    '?constructor[prototype][x]=1',
    '?PageSize=0x10',
    '?Page=%201',
    '?state=Delivered&state=Failed',
    '?correlationId=not-a-uuid',
    '?lang=%00',
    '?=',
    '?&&&',
    '?%',
    `?${'a=1&'.repeat(3000)}`,
  ),
);
