import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createMerchant, updateAllowedOrigins } from '../../src/accounts/service.js';
import { call, createTestContext, TEST_PUBLIC_BASE_URL, type TestContext, asOperator } from '../helpers/app.js';
import { countRows, createLink, details, fieldsOf, payByLink, tokenizeByLink } from './fixtures.js';

const CREATE = '/api/v1/paymentlinks/create';

describe('Create Payment Link (interface §4.3, §Creating a link)', () => {
  let ctx: TestContext;
  let otherTerminal: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    otherTerminal = (await createMerchant(ctx.tdb.db, 'Other')).terminalIdentifier;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('creates a PayByLink and answers {paymentLinkReference, url} with the envelope, status 200 (§Status codes, §References and URLs)', async () => {
    const r = await call(ctx, 'POST', CREATE, payByLink(ctx));
    expect(r.status).toBe(200);
    const ref = r.body.paymentLinkReference as string;
    expect(ref).toMatch(/^pl_[A-Za-z0-9_-]{16,}$/);
    expect(ref.length).toBeLessThanOrEqual(100);
    expect(r.body.url).toBe(`${TEST_PUBLIC_BASE_URL}/pay/${ref}`);
    expect(r.body.responseDateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(r.body.responseIdentifier).toEqual(expect.any(String));
  });

  it('docs/performance.md: creates that arrive together are stored by one statement, each exactly as it was sent', async () => {
    const before = await countRows(ctx, 'payment_links');
    const bodies = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? tokenizeByLink(ctx, { description: `together ${i}` })
        : payByLink(ctx, { description: `together ${i}`, exactSalesCount: i + 1, expiresAt: '2099-01-02T03:04:05.678Z' }),
    );
    const answers = await Promise.all(bodies.map((b) => call(ctx, 'POST', CREATE, b)));
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    const refs = answers.map((a) => a.body.paymentLinkReference as string);
    expect(new Set(refs).size).toBe(12);
    expect(await countRows(ctx, 'payment_links')).toBe(before + 12);
    for (const [i, ref] of refs.entries()) {
      const link = await details(ctx, ref);
      expect(link).toMatchObject({ description: `together ${i}`, type: i % 3 === 0 ? 'TokenizeByLink' : 'PayByLink' });
      if (i % 3 !== 0) expect(link).toMatchObject({ maxSalesCount: i + 1, validUntil: '2099-01-02T03:04:05.678Z', amount: 3000, currency: 'EUR' });
    }
  });

  it("docs/performance.md, §Authentication: another merchant's terminal among creates stored together fails alone, also with an Idempotency-Key; nothing of it is stored", async () => {
    const before = await countRows(ctx, 'payment_links');
    const keysBefore = await countRows(ctx, 'idempotency_keys');
    const answers = await Promise.all([
      call(ctx, 'POST', CREATE, payByLink(ctx)),
      call(ctx, 'POST', CREATE, payByLink(ctx, { terminalIdentifier: otherTerminal })),
      call(ctx, 'POST', CREATE, payByLink(ctx)),
      call(ctx, 'POST', CREATE, payByLink(ctx, { terminalIdentifier: otherTerminal }), { headers: { 'idempotency-key': 'foreign-terminal' } }),
      call(ctx, 'POST', CREATE, payByLink(ctx, { terminalIdentifier: 'NOSUCHTERM00' })),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200, 400, 400]);
    for (const a of [answers[1], answers[3], answers[4]]) {
      expect(a?.body.code).toBe('TERMINAL_NOT_FOUND');
      expect(fieldsOf(a?.body ?? {})).toEqual([{ field: 'terminalIdentifier', code: 'TERMINAL_NOT_FOUND' }]);
    }
    expect(await countRows(ctx, 'payment_links')).toBe(before + 2);
    expect(await countRows(ctx, 'idempotency_keys')).toBe(keysBefore);
  });

  it('applies the §Creating a link defaults: culture is, description "", no expiry, unlimited sales', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const link = await details(ctx, ref);
    expect(link).toMatchObject({
      culture: 'is',
      description: '',
      themeKey: null,
      validUntil: null,
      returnUrl: null,
      maxSalesCount: null,
      recurringProcessingModel: null,
      shopperInfos: [],
      submissions: [],
      status: 'Active',
      visitCount: 0,
      salesCount: 0,
      createdAt: ctx.clock.now().toISOString(),
    });
  });

  it('takes the seven optional parameters of §Creating a link and shows them in the link', async () => {
    const expiresAt = new Date(ctx.clock.now().getTime() + 3_600_000).toISOString();
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        themeKey: 'dark',
        expiresAt,
        description: 'Spring sale',
        returnUrl: 'https://shop.example/thanks?x=1',
        exactSalesCount: 5,
        shopperInfo: [
          { field: 'Ssn', requirementType: 'Required' },
          { field: 'EmailAddress', requirementType: 'Prefilled', prefilledValue: 'a@b.is' },
        ],
      }),
    );
    expect(await details(ctx, ref)).toMatchObject({
      culture: 'en',
      themeKey: 'dark',
      validUntil: expiresAt,
      description: 'Spring sale',
      returnUrl: 'https://shop.example/thanks?x=1',
      maxSalesCount: 5,
      shopperInfos: [
        { field: 'Ssn', requirementType: 'Required', prefilledValue: null },
        { field: 'EmailAddress', requirementType: 'Prefilled', prefilledValue: 'a@b.is' },
      ],
    });
  });

  it('accepts shopperInfos as a synonym of shopperInfo (§Creating a link)', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { shopperInfos: [{ field: 'City', requirementType: 'Optional' }] }));
    expect((await details(ctx, ref)).shopperInfos).toEqual([{ field: 'City', requirementType: 'Optional', prefilledValue: null }]);
  });

  it('creates a TokenizeByLink with amount 0, no items and its recurringProcessingModel (§Creating a link)', async () => {
    const ref = await createLink(ctx, tokenizeByLink(ctx));
    expect(await details(ctx, ref)).toMatchObject({ type: 'TokenizeByLink', amount: 0, items: [], recurringProcessingModel: 'CardOnFile', currency: 'ISK' });
    const noItems = tokenizeByLink(ctx);
    delete noItems.items;
    await createLink(ctx, noItems);
  });

  it('takes clients in the field as they are: any-case names, digit-string integers, null as absent (§Clients in the field)', async () => {
    const ref = await createLink(ctx, {
      Type: 'PayByLink',
      TerminalIdentifier: ctx.merchant.terminalIdentifier,
      AMOUNT: '48900',
      currency: 'ISK',
      Items: [{ Name: 'Coat', Quantity: '1', UnitPrice: '48900', AmountWithoutDiscount: 48900, Amount: '48900' }],
      themeKey: null,
      returnUrl: null,
    });
    expect(await details(ctx, ref)).toMatchObject({ amount: 48900, themeKey: null, items: [{ name: 'Coat', amount: 48900 }] });
  });

  it('accepts an ISK amount that ends in 00 and the largest amount (§Creating a link)', async () => {
    const item = (n: number) => [{ name: 'x', quantity: 1, unitPrice: n, amountWithoutDiscount: n, amount: n }];
    await createLink(ctx, payByLink(ctx, { currency: 'ISK', amount: 1000, items: item(1000) }));
    await createLink(ctx, payByLink(ctx, { amount: 100_000_000_000, items: item(100_000_000_000) }));
    await createLink(ctx, payByLink(ctx, { amount: 1, items: item(1) }));
  });

  // ---------------------------------------------------------------- field rules, one failing field each

  const item = { name: 'Mug', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000 };
  type Case = [name: string, body: (c: TestContext) => Record<string, unknown>, errors: { field: string; code: string }[], code?: string];
  const cases: Case[] = [
    ['type unknown', (c) => payByLink(c, { type: 'PayLater' }), [{ field: 'type', code: 'ENUM' }]],
    ['type missing', (c) => ({ ...payByLink(c), type: undefined }), [{ field: 'type', code: 'REQUIRED' }]],
    ['terminalIdentifier too short', (c) => payByLink(c, { terminalIdentifier: 'ABCDEFGHIJK' }), [{ field: 'terminalIdentifier', code: 'LENGTH' }]],
    ['terminalIdentifier too long', (c) => payByLink(c, { terminalIdentifier: 'ABCDEFGHIJKLM' }), [{ field: 'terminalIdentifier', code: 'LENGTH' }]],
    ['terminalIdentifier not alphanumeric', (c) => payByLink(c, { terminalIdentifier: 'ABCDEF-HIJKL' }), [{ field: 'terminalIdentifier', code: 'FORMAT' }]],
    [
      'terminalIdentifier unknown',
      (c) => payByLink(c, { terminalIdentifier: 'ZZZZZZZZZZZZ' }),
      [{ field: 'terminalIdentifier', code: 'TERMINAL_NOT_FOUND' }],
      'TERMINAL_NOT_FOUND',
    ],
    ['amount not an integer', (c) => payByLink(c, { amount: 30.5 }), [{ field: 'amount', code: 'TYPE' }]],
    ['amount missing', (c) => ({ ...payByLink(c), amount: undefined }), [{ field: 'amount', code: 'REQUIRED' }]],
    ['amount 0 for PayByLink', (c) => payByLink(c, { amount: 0, items: [{ ...item, amount: 0 }] }), [{ field: 'amount', code: 'RANGE' }]],
    ['amount above 100,000,000,000', (c) => payByLink(c, { amount: 100_000_000_001 }), [{ field: 'amount', code: 'RANGE' }]],
    ['amount negative', (c) => payByLink(c, { amount: -100 }), [{ field: 'amount', code: 'RANGE' }]],
    [
      'ISK amount not ending in 00',
      (c) => payByLink(c, { currency: 'ISK', amount: 2050, items: [{ ...item, unitPrice: 1025, amountWithoutDiscount: 2050, amount: 2050 }] }),
      [{ field: 'amount', code: 'NOT_MULTIPLE_OF_100' }],
    ],
    ['currency lower-case', (c) => payByLink(c, { currency: 'eur' }), [{ field: 'currency', code: 'ENUM' }]],
    ['currency unknown', (c) => payByLink(c, { currency: 'XYZ' }), [{ field: 'currency', code: 'ENUM' }]],
    ['currency four characters', (c) => payByLink(c, { currency: 'EURO' }), [{ field: 'currency', code: 'ENUM' }]],
    ['items missing for PayByLink', (c) => ({ ...payByLink(c), items: undefined }), [{ field: 'items', code: 'REQUIRED' }]],
    ['items empty for PayByLink', (c) => payByLink(c, { items: [] }), [{ field: 'items', code: 'COUNT' }]],
    [
      'more than 200 items',
      (c) =>
        payByLink(c, {
          amount: 201,
          items: Array.from({ length: 201 }, () => ({ name: 'x', quantity: 1, unitPrice: 1, amountWithoutDiscount: 1, amount: 1 })),
        }),
      [{ field: 'items', code: 'COUNT' }],
    ],
    ['item quantity 0', (c) => payByLink(c, { amount: 2000, items: [{ ...item, quantity: 0 }] }), [{ field: 'items[0].quantity', code: 'RANGE' }]],
    ['item unitPrice negative', (c) => payByLink(c, { amount: 2000, items: [{ ...item, unitPrice: -1 }] }), [{ field: 'items[0].unitPrice', code: 'RANGE' }]],
    [
      'item amountWithoutDiscount ≠ unitPrice × quantity',
      (c) => payByLink(c, { amount: 1900, items: [{ ...item, amountWithoutDiscount: 1900, amount: 1900 }] }),
      [{ field: 'items[0].amountWithoutDiscount', code: 'NOT_UNIT_PRICE_TIMES_QUANTITY' }],
    ],
    [
      'item amount above amountWithoutDiscount',
      (c) => payByLink(c, { amount: 2100, items: [{ ...item, amount: 2100 }] }),
      [{ field: 'items[0].amount', code: 'ABOVE_AMOUNT_WITHOUT_DISCOUNT' }],
    ],
    ['item amount negative', (c) => payByLink(c, { amount: 2000, items: [item, { ...item, amount: -1 }] }), [{ field: 'items[1].amount', code: 'RANGE' }]],
    ['item amounts not adding up to amount', (c) => payByLink(c, { amount: 2500, items: [item] }), [{ field: 'items', code: 'SUM_MISMATCH' }]],
    ['item name missing', (c) => payByLink(c, { amount: 2000, items: [{ ...item, name: undefined }] }), [{ field: 'items[0].name', code: 'REQUIRED' }]],
    [
      'item with an unknown field',
      (c) => payByLink(c, { amount: 2000, items: [{ ...item, colour: 'red' }] }),
      [{ field: 'items[0].colour', code: 'UNKNOWN_FIELD' }],
    ],
    [
      'recurringProcessingModel on a PayByLink',
      (c) => payByLink(c, { recurringProcessingModel: 'CardOnFile' }),
      [{ field: 'recurringProcessingModel', code: 'NOT_ALLOWED' }],
    ],
    [
      'recurringProcessingModel missing on a TokenizeByLink',
      (c) => ({ ...tokenizeByLink(c), recurringProcessingModel: undefined }),
      [{ field: 'recurringProcessingModel', code: 'REQUIRED' }],
    ],
    [
      'recurringProcessingModel unknown',
      (c) => tokenizeByLink(c, { recurringProcessingModel: 'Sometimes' }),
      [{ field: 'recurringProcessingModel', code: 'ENUM' }],
    ],
    ['TokenizeByLink with an amount', (c) => tokenizeByLink(c, { amount: 100 }), [{ field: 'amount', code: 'RANGE' }]],
    ['TokenizeByLink with items', (c) => tokenizeByLink(c, { currency: 'EUR', items: [item] }), [{ field: 'items', code: 'COUNT' }]],
    ['culture unknown', (c) => payByLink(c, { culture: 'de' }), [{ field: 'culture', code: 'ENUM' }]],
    ['themeKey empty', (c) => payByLink(c, { themeKey: '' }), [{ field: 'themeKey', code: 'LENGTH' }]],
    ['themeKey of 65 characters', (c) => payByLink(c, { themeKey: 'k'.repeat(65) }), [{ field: 'themeKey', code: 'LENGTH' }]],
    [
      'expiresAt in the past',
      (c) => payByLink(c, { expiresAt: new Date(c.clock.now().getTime() - 1000).toISOString() }),
      [{ field: 'expiresAt', code: 'RANGE' }],
    ],
    ['expiresAt exactly now (strictly future)', (c) => payByLink(c, { expiresAt: c.clock.now().toISOString() }), [{ field: 'expiresAt', code: 'RANGE' }]],
    ['expiresAt not a timestamp', (c) => payByLink(c, { expiresAt: 'tomorrow' }), [{ field: 'expiresAt', code: 'FORMAT' }]],
    ['expiresAt not in UTC', (c) => payByLink(c, { expiresAt: '2099-01-01T12:00:00+02:00' }), [{ field: 'expiresAt', code: 'FORMAT' }]],
    ['description of 501 characters', (c) => payByLink(c, { description: 'd'.repeat(501) }), [{ field: 'description', code: 'LENGTH' }]],
    [
      'returnUrl with another scheme',
      (c) => payByLink(c, { returnUrl: 'ftp://shop.example/x' }),
      [{ field: 'returnUrl', code: 'INVALID_RETURN_URL' }],
      'INVALID_RETURN_URL',
    ],
    ['returnUrl relative', (c) => payByLink(c, { returnUrl: '/thanks' }), [{ field: 'returnUrl', code: 'INVALID_RETURN_URL' }], 'INVALID_RETURN_URL'],
    ['returnUrl not a URL', (c) => payByLink(c, { returnUrl: 'https://' }), [{ field: 'returnUrl', code: 'INVALID_RETURN_URL' }], 'INVALID_RETURN_URL'],
    [
      'returnUrl over 2048 characters',
      (c) => payByLink(c, { returnUrl: `https://shop.example/${'a'.repeat(2030)}` }),
      [{ field: 'returnUrl', code: 'INVALID_RETURN_URL' }],
      'INVALID_RETURN_URL',
    ],
    ['exactSalesCount 0', (c) => payByLink(c, { exactSalesCount: 0 }), [{ field: 'exactSalesCount', code: 'RANGE' }]],
    [
      'shopperInfo field unknown',
      (c) => payByLink(c, { shopperInfo: [{ field: 'ShoeSize', requirementType: 'Required' }] }),
      [{ field: 'shopperInfo[0].field', code: 'ENUM' }],
    ],
    [
      'shopperInfo requirementType unknown',
      (c) => payByLink(c, { shopperInfo: [{ field: 'Ssn', requirementType: 'Must', prefilledValue: 'x' }] }),
      [{ field: 'shopperInfo[0].requirementType', code: 'ENUM' }],
    ],
    [
      'shopperInfo Prefilled without a value',
      (c) => payByLink(c, { shopperInfo: [{ field: 'Ssn', requirementType: 'Prefilled' }] }),
      [{ field: 'shopperInfo[0].prefilledValue', code: 'REQUIRED' }],
    ],
    [
      'shopperInfo value without Prefilled',
      (c) => payByLink(c, { shopperInfos: [{ field: 'Ssn', requirementType: 'Required', prefilledValue: '0101302989' }] }),
      [{ field: 'shopperInfos[0].prefilledValue', code: 'NOT_ALLOWED' }],
    ],
    [
      'shopperInfo field twice',
      (c) =>
        payByLink(c, {
          shopperInfo: [
            { field: 'Ssn', requirementType: 'Required' },
            { field: 'Ssn', requirementType: 'Optional' },
          ],
        }),
      [{ field: 'shopperInfo[1].field', code: 'DUPLICATE' }],
    ],
    ['shopperInfo and shopperInfos both', (c) => payByLink(c, { shopperInfo: [], shopperInfos: [] }), [{ field: 'shopperInfos', code: 'DUPLICATE_FIELD' }]],
    ['unknown field', (c) => payByLink(c, { colour: 'red' }), [{ field: 'colour', code: 'UNKNOWN_FIELD' }]],
  ];

  it.each(cases)('§Creating a link: rejects %s', async (_name, body, expected, code = 'VALIDATION_FAILED') => {
    const before = await countRows(ctx, 'payment_links');
    const r = await call(ctx, 'POST', CREATE, body(ctx));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.code).toBe(code);
    expect(r.res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(fieldsOf(r.body)).toEqual(expected);
    expect(await countRows(ctx, 'payment_links')).toBe(before);
  });

  it('§Authentication: a terminal of another merchant is TERMINAL_NOT_FOUND', async () => {
    const r = await call(ctx, 'POST', CREATE, payByLink(ctx, { terminalIdentifier: otherTerminal }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('TERMINAL_NOT_FOUND');
    expect(fieldsOf(r.body)).toEqual([{ field: 'terminalIdentifier', code: 'TERMINAL_NOT_FOUND' }]);
  });

  it('§Errors: names every failing field in one answer, schema and cross-field rules together', async () => {
    const items = [0, 1, 2, 3].map(() => ({ ...item }));
    items[3] = { ...item, amount: 2500 };
    const r = await call(
      ctx,
      'POST',
      CREATE,
      payByLink(ctx, { terminalIdentifier: 'short', amount: 8500, items, returnUrl: 'mailto:x@y.is', currency: 'isk', extra: true }),
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining([
        { field: 'terminalIdentifier', code: 'LENGTH' },
        { field: 'items[3].amount', code: 'ABOVE_AMOUNT_WITHOUT_DISCOUNT' },
        { field: 'returnUrl', code: 'INVALID_RETURN_URL' },
        { field: 'currency', code: 'ENUM' },
        { field: 'extra', code: 'UNKNOWN_FIELD' },
      ]),
    );
    expect(r.body.detail).toBe(`${(r.body.errors as unknown[]).length} fields are invalid`);
  });

  it('§Errors: a bad terminal mixed with other failures is VALIDATION_FAILED with the TERMINAL_NOT_FOUND entry', async () => {
    const r = await call(ctx, 'POST', CREATE, payByLink(ctx, { terminalIdentifier: otherTerminal, culture: 'xx' }));
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining([
        { field: 'terminalIdentifier', code: 'TERMINAL_NOT_FOUND' },
        { field: 'culture', code: 'ENUM' },
      ]),
    );
  });

  // ---------------------------------------------------------------- capabilities and origin (§Authentication)

  it('§Authentication: PayByLink needs PaymentLinks, TokenizeByLink needs TokenizeLinks (403 FORBIDDEN)', async () => {
    const tokenOnly = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['TokenizeLinks']);
    const linksOnly = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
    const before = await countRows(ctx, 'payment_links');
    const a = await call(ctx, 'POST', CREATE, payByLink(ctx), { apiKey: tokenOnly.apiKey });
    expect([a.status, a.body.code]).toEqual([403, 'FORBIDDEN']);
    const b = await call(ctx, 'POST', CREATE, tokenizeByLink(ctx), { apiKey: linksOnly.apiKey });
    expect([b.status, b.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(await countRows(ctx, 'payment_links')).toBe(before);
    await createLink(ctx, tokenizeByLink(ctx), tokenOnly.apiKey);
    await createLink(ctx, payByLink(ctx), linksOnly.apiKey);
  });

  it('§Authentication: a key without either capability is refused before anything else', async () => {
    const hooksOnly = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['Webhooks']);
    const r = await call(ctx, 'POST', CREATE, { nonsense: true }, { apiKey: hooksOnly.apiKey });
    expect([r.status, r.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('§Authentication: an Origin not on the merchant’s non-empty list is 403 ORIGIN_NOT_ALLOWED; listed, absent or unrestricted passes', async () => {
    const m = await createMerchant(ctx.tdb.db, 'Origins');
    const body = payByLink(ctx, { terminalIdentifier: m.terminalIdentifier });
    // An empty list allows any origin.
    expect((await call(ctx, 'POST', CREATE, body, { apiKey: m.apiKey, headers: { origin: 'https://evil.example' } })).status).toBe(200);
    await updateAllowedOrigins(asOperator(ctx), m.merchantId, ['https://shop.example']);
    const before = await countRows(ctx, 'payment_links');
    const r = await call(ctx, 'POST', CREATE, body, { apiKey: m.apiKey, headers: { origin: 'https://evil.example' } });
    expect([r.status, r.body.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    expect(await countRows(ctx, 'payment_links')).toBe(before);
    expect((await call(ctx, 'POST', CREATE, body, { apiKey: m.apiKey, headers: { origin: 'https://shop.example' } })).status).toBe(200);
    expect((await call(ctx, 'POST', CREATE, body, { apiKey: m.apiKey })).status).toBe(200);
  });

  // ---------------------------------------------------------------- idempotency (§Idempotent creates)

  it('§Idempotent creates: the same Idempotency-Key and body returns the first response and creates one link', async () => {
    const before = await countRows(ctx, 'payment_links');
    const headers = { 'idempotency-key': 'order-1001' };
    const a = await call(ctx, 'POST', CREATE, payByLink(ctx, { description: 'order 1001' }), { headers });
    const b = await call(ctx, 'POST', CREATE, payByLink(ctx, { description: 'order 1001' }), { headers });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.paymentLinkReference).toBe(a.body.paymentLinkReference);
    expect(b.body.url).toBe(a.body.url);
    expect(b.body.responseIdentifier).not.toBe(a.body.responseIdentifier);
    expect(await countRows(ctx, 'payment_links')).toBe(before + 1);
    const c = await call(ctx, 'POST', CREATE, payByLink(ctx, { description: 'another order' }), { headers });
    expect([c.status, c.body.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await countRows(ctx, 'payment_links')).toBe(before + 1);
  });

  it('§Idempotent creates: a retry gets the first response even when its body would no longer validate (expiresAt now past)', async () => {
    const headers = { 'idempotency-key': 'order-1003' };
    const body = payByLink(ctx, { expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString() });
    const a = await call(ctx, 'POST', CREATE, body, { headers });
    expect(a.status).toBe(200);
    ctx.clock.advance(5 * 60_000);
    const b = await call(ctx, 'POST', CREATE, body, { headers });
    expect([b.status, b.body.paymentLinkReference]).toEqual([200, a.body.paymentLinkReference]);
    const fresh = await call(ctx, 'POST', CREATE, body);
    expect(fresh.status).toBe(400);
  });

  it('§Idempotent creates: a rejected create does not take the Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'order-1002' };
    const keys = await countRows(ctx, 'idempotency_keys');
    const bad = await call(ctx, 'POST', CREATE, payByLink(ctx, { amount: 1 }), { headers });
    expect(bad.status).toBe(400);
    expect(await countRows(ctx, 'idempotency_keys')).toBe(keys);
    const good = await call(ctx, 'POST', CREATE, payByLink(ctx), { headers });
    expect(good.status).toBe(200);
  });

  it('§Idempotent creates: a malformed Idempotency-Key is a validation error', async () => {
    const r = await call(ctx, 'POST', CREATE, payByLink(ctx), { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(r.status).toBe(400);
    expect(fieldsOf(r.body)).toEqual([{ field: 'Idempotency-Key', code: 'FORMAT' }]);
  });

  it('§Errors: a body that is not an object, or empty, is answered in the standard form', async () => {
    const a = await call(ctx, 'POST', CREATE, [1, 2]);
    expect([a.status, a.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const b = await call(ctx, 'POST', CREATE, '{"type": ');
    expect([b.status, b.body.code]).toEqual([400, 'MALFORMED_JSON']);
  });

  it('describes the operations in the OpenAPI document', async () => {
    const doc = await call(ctx, 'GET', '/api/v1/openapi.json', undefined, { apiKey: null });
    const paths = doc.body.paths as Record<string, Record<string, { summary?: string }>>;
    expect(paths['/api/v1/paymentlinks/create']?.post?.summary).toBe('Create Payment Link');
    expect(paths['/api/v1/paymentlinks/update']?.post?.summary).toBe('Update Payment Link');
    expect(paths['/api/v1/paymentlinks/disable']?.post?.summary).toBe('Disable Payment Link');
    expect(paths['/api/v1/paymentlinks']?.get?.summary).toBe('Get Payment Links');
    expect(paths['/api/v1/paymentlinks/{reference}']?.get?.summary).toBe('Get Payment Link Details');
  });
});
