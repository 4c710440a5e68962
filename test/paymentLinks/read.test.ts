import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, details, payByLink, saveCard, sell, tokenizeByLink } from './fixtures.js';
import { Shopper } from '../checkout/fixtures.js';

const LIST = '/api/v1/paymentlinks';

describe('Get Payment Link Details (interface §4.2) and status (§Link status)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('returns the full 2.2 representation', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { description: 'Two mugs and tea', shopperInfo: [{ field: 'Ssn', requirementType: 'Required' }] }));
    const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${ref}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['paymentLink', 'responseDateTime', 'responseIdentifier']);
    const link = r.body.paymentLink as Record<string, unknown>;
    expect(Object.keys(link).sort()).toEqual(
      [
        'terminalIdentifier',
        'themeKey',
        'paymentLinkReference',
        'description',
        'amount',
        'currency',
        'returnUrl',
        'status',
        'culture',
        'type',
        'url',
        'createdAt',
        'validUntil',
        'recurringProcessingModel',
        'visitCount',
        'salesCount',
        'maxSalesCount',
        'items',
        'shopperInfos',
        'submissions',
      ].sort(),
    );
    expect(link).toMatchObject({
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      paymentLinkReference: ref,
      description: 'Two mugs and tea',
      amount: 3000,
      currency: 'EUR',
      type: 'PayByLink',
      url: `${ctx.config.publicBaseUrl}/pay/${ref}`,
      items: [
        { name: 'Mug', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000 },
        { name: 'Tea', quantity: 1, unitPrice: 1500, amountWithoutDiscount: 1500, amount: 1000 },
      ],
      shopperInfos: [{ field: 'Ssn', requirementType: 'Required', prefilledValue: null }],
      submissions: [],
    });
    expect(link.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('§Timestamps and identifiers: createdAt comes from the injected clock', async () => {
    ctx.clock.set('2031-02-03T04:05:06.789Z');
    const ref = await createLink(ctx, payByLink(ctx));
    expect((await details(ctx, ref)).createdAt).toBe('2031-02-03T04:05:06.789Z');
  });

  it('lists the submissions recorded on the link (interface §2.5)', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { shopperInfo: [{ field: 'Ssn', requirementType: 'Required' }] }));
    // A refused card first (an incomplete submission), then a paid visit.
    const shopper = new Shopper(ctx);
    expect((await shopper.payWith(`/pay/${ref}`, '4000000000000002', { 'shopper-Ssn': '0101302989' })).statusCode).toBe(200);
    ctx.clock.advance(1000);
    expect((await shopper.payWith(`/pay/${ref}`, '4242424242424242', { 'shopper-Ssn': '0101302989' })).statusCode).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>(
      'SELECT payfac_reference FROM payments WHERE payment_link_reference = $1 AND success',
      [ref],
    );
    expect((await details(ctx, ref)).submissions).toEqual([
      { answers: [{ field: 'Ssn', value: '0101302989' }], completed: false, amount: 3000, currency: 'EUR', token: null, payfacReference: null },
      {
        answers: [{ field: 'Ssn', value: '0101302989' }],
        completed: true,
        amount: 3000,
        currency: 'EUR',
        token: null,
        payfacReference: rows[0]?.payfac_reference,
      },
    ]);
  });

  it('§Link status: shows Expired from the very instant validUntil is reached', async () => {
    const validUntil = new Date(ctx.clock.now().getTime() + 60 * 60 * 1000);
    const ref = await createLink(ctx, payByLink(ctx, { expiresAt: validUntil.toISOString() }));
    expect((await details(ctx, ref)).status).toBe('Active');
    ctx.clock.set(new Date(validUntil.getTime() - 1));
    expect((await details(ctx, ref)).status).toBe('Active');
    ctx.clock.set(validUntil);
    expect((await details(ctx, ref)).status).toBe('Expired');
  });

  it('§Link status: Used when salesCount reaches maxSalesCount, and Used takes precedence over Expired', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { exactSalesCount: 2, expiresAt: new Date(ctx.clock.now().getTime() + 1000).toISOString() }));
    await sell(ctx, ref);
    expect((await details(ctx, ref)).status).toBe('Active');
    await sell(ctx, ref);
    expect((await details(ctx, ref)).status).toBe('Used');
    ctx.clock.advance(5000);
    expect((await details(ctx, ref)).status).toBe('Used');
  });

  it('§Link status: a TokenizeByLink is Completed after its tokenisation, also past validUntil', async () => {
    const ref = await createLink(ctx, tokenizeByLink(ctx, { expiresAt: new Date(ctx.clock.now().getTime() + 1000).toISOString() }));
    await saveCard(ctx, ref);
    expect((await details(ctx, ref)).status).toBe('Completed');
    ctx.clock.advance(5000);
    expect((await details(ctx, ref)).status).toBe('Completed');
  });

  it('§Link status: Disabled takes precedence over every other status', async () => {
    const used = await createLink(ctx, payByLink(ctx, { exactSalesCount: 1 }));
    await sell(ctx, used);
    const completed = await createLink(ctx, tokenizeByLink(ctx));
    await saveCard(ctx, completed);
    for (const ref of [used, completed]) {
      expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: ref })).status).toBe(200);
      expect((await details(ctx, ref)).status).toBe('Disabled');
    }
  });

  it('answers 404 NOT_FOUND for an unknown reference', async () => {
    const r = await call(ctx, 'GET', '/api/v1/paymentlinks/pl_doesnotexist');
    expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('Get Payment Links (interface §4.1, §Lists)', () => {
  let ctx: TestContext;
  let m: CreatedMerchant;
  const refs: string[] = []; // oldest first
  beforeAll(async () => {
    ctx = await createTestContext();
    m = await createMerchant(ctx.tdb.db, 'Lister');
    for (let i = 0; i < 21; i++) {
      ctx.clock.advance(1000);
      const body =
        i % 3 === 2
          ? tokenizeByLink(ctx, { terminalIdentifier: m.terminalIdentifier })
          : payByLink(ctx, { terminalIdentifier: m.terminalIdentifier, description: `link ${i}` });
      refs.push(await createLink(ctx, body, m.apiKey));
    }
    // A link of the test context's merchant must never show up in m's list.
    await createLink(ctx, payByLink(ctx));
  });
  afterAll(async () => {
    await ctx.close();
  });
  const list = (query: Record<string, string> = {}) => call(ctx, 'GET', LIST, undefined, { apiKey: m.apiKey, query });
  const refsOf = (body: Record<string, unknown>) => (body.data as { paymentLinkReference: string }[]).map((d) => d.paymentLinkReference);

  it('returns the newest 20 first by default, with the true totalCount', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.totalCount).toBe(21);
    expect(refsOf(r.body)).toEqual([...refs].reverse().slice(0, 20));
  });

  it('gives each entry exactly the fields of 2.7', async () => {
    const r = await list({ PageSize: '1' });
    const [entry] = r.body.data as Record<string, unknown>[];
    expect(entry).toEqual({
      paymentLinkReference: refs[20],
      description: '',
      amount: 0,
      currency: 'ISK',
      type: 'TokenizeByLink',
      createdAt: expect.stringMatching(/Z$/),
    });
  });

  it('pages with Page and PageSize', async () => {
    const r = await list({ Page: '1', PageSize: '5' });
    expect(refsOf(r.body)).toEqual([...refs].reverse().slice(5, 10));
    expect(r.body.totalCount).toBe(21);
    const last = await list({ Page: '4', PageSize: '5' });
    expect(refsOf(last.body)).toEqual([refs[0]]);
  });

  it('answers a page past the end with data [] and the true totalCount', async () => {
    const r = await list({ Page: '9', PageSize: '100' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ data: [], totalCount: 21 });
  });

  it('matches the parameter names without regard to case', async () => {
    const r = await list({ page: '2', pagesize: '3' });
    expect(refsOf(r.body)).toEqual([...refs].reverse().slice(6, 9));
    const upper = await list({ PAGESIZE: '2' });
    expect(refsOf(upper.body)).toHaveLength(2);
  });

  it.each([
    [{ PageSize: '0' }, 'PageSize'],
    [{ PageSize: '101' }, 'PageSize'],
    [{ Page: '-1' }, 'Page'],
    [{ Page: 'first' }, 'Page'],
    [{ PageSize: '2.5' }, 'PageSize'],
  ])('§Lists: rejects %j with 400 naming %s', async (query, field) => {
    const r = await list(query);
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((r.body.errors as { field: string }[]).map((e) => e.field)).toEqual([field]);
  });

  it('accepts the bounds PageSize 1 and 100', async () => {
    expect(refsOf((await list({ PageSize: '1' })).body)).toHaveLength(1);
    expect(refsOf((await list({ PageSize: '100' })).body)).toHaveLength(21);
  });

  it('orders links created in the same instant by reference, descending (§Lists)', async () => {
    const same = await createMerchant(ctx.tdb.db, 'Same instant');
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push(await createLink(ctx, payByLink(ctx, { terminalIdentifier: same.terminalIdentifier }), same.apiKey));
    const r = await call(ctx, 'GET', LIST, undefined, { apiKey: same.apiKey });
    expect(refsOf(r.body)).toEqual([...made].sort().reverse());
  });

  it('shows both types and only the key’s merchant’s links (§Authentication)', async () => {
    const r = await list({ PageSize: '100' });
    const types = new Set((r.body.data as { type: string }[]).map((d) => d.type));
    expect(types).toEqual(new Set(['PayByLink', 'TokenizeByLink']));
    expect(refsOf(r.body).sort()).toEqual([...refs].sort());
  });

  it('keeps totalCount exact through creates stored together, keyed creates and their replays (docs/performance.md: a kept count, not a count per call)', async () => {
    const counter = await createMerchant(ctx.tdb.db, 'Counter');
    const body = () => payByLink(ctx, { terminalIdentifier: counter.terminalIdentifier });
    const keyed = (k: string) => call(ctx, 'POST', '/api/v1/paymentlinks/create', body(), { apiKey: counter.apiKey, headers: { 'idempotency-key': k } });
    const answers = await Promise.all([
      ...Array.from({ length: 15 }, () => call(ctx, 'POST', '/api/v1/paymentlinks/create', body(), { apiKey: counter.apiKey })),
      keyed('count-1'),
      keyed('count-2'),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect((await keyed('count-1')).status).toBe(200); // a replay adds nothing
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links WHERE merchant_id = $1', [counter.merchantId]);
    expect(rows[0]?.n).toBe(17);
    const r = await call(ctx, 'GET', LIST, undefined, { apiKey: counter.apiKey, query: { PageSize: '5', Page: '9' } });
    expect(r.body).toMatchObject({ data: [], totalCount: 17 });
  });
});

describe('Tenant isolation (§Authentication)', () => {
  let ctx: TestContext;
  let other: CreatedMerchant;
  let theirs: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    other = await createMerchant(ctx.tdb.db, 'Other');
    theirs = await createLink(ctx, payByLink(ctx, { terminalIdentifier: other.terminalIdentifier, description: 'theirs' }), other.apiKey);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it("answers 404 for another merchant's link on details, update and disable, and changes nothing", async () => {
    const d = await call(ctx, 'GET', `/api/v1/paymentlinks/${theirs}`);
    expect([d.status, d.body.code]).toEqual([404, 'NOT_FOUND']);
    const u = await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: theirs, description: 'mine now' });
    expect([u.status, u.body.code]).toEqual([404, 'NOT_FOUND']);
    const x = await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: theirs });
    expect([x.status, x.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(await details(ctx, theirs, other.apiKey)).toMatchObject({ description: 'theirs', status: 'Active' });
  });

  it("leaves another merchant's links out of the list", async () => {
    const r = await call(ctx, 'GET', LIST);
    expect(r.body).toMatchObject({ data: [], totalCount: 0 });
  });

  it('docs/performance.md: GETs read together in one query still answer each merchant with its own links only (§Authentication)', async () => {
    const mine = await Promise.all([1, 2, 3].map(() => createLink(ctx, payByLink(ctx))));
    // All in one turn: the details of these requests are read by one query.
    const answers = await Promise.all([
      ...mine.map((ref) => call(ctx, 'GET', `/api/v1/paymentlinks/${ref}`)),
      ...mine.map((ref) => call(ctx, 'GET', `/api/v1/paymentlinks/${ref}`, undefined, { apiKey: other.apiKey })),
      call(ctx, 'GET', `/api/v1/paymentlinks/${theirs}`),
      call(ctx, 'GET', `/api/v1/paymentlinks/${theirs}`, undefined, { apiKey: other.apiKey }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 404, 404, 404, 200]);
    expect(answers.slice(0, 3).map((a) => (a.body.paymentLink as { paymentLinkReference: string }).paymentLinkReference)).toEqual(mine);
    expect(JSON.stringify(answers.slice(3, 7).map((a) => a.body))).not.toMatch(new RegExp(`${mine.join('|')}|theirs`));
    expect((answers[7]?.body.paymentLink as { description: string }).description).toBe('theirs');
  });

  it('refuses partner keys with 403 (§Webhooks: partners manage webhooks only)', async () => {
    const partner = await createPartner(ctx.tdb.db, 'Partner');
    const r = await call(ctx, 'GET', LIST, undefined, { apiKey: partner.apiKey });
    expect([r.status, r.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('refuses a missing or unknown key with 401', async () => {
    expect((await call(ctx, 'GET', `/api/v1/paymentlinks/${theirs}`, undefined, { apiKey: null })).status).toBe(401);
    expect((await call(ctx, 'GET', LIST, undefined, { apiKey: 'pk_not-a-real-key-at-all-000000' })).status).toBe(401);
  });
});

describe('The shopper page placeholder at /pay/{reference} (§References and URLs, §Link status)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('names the link’s description (escaped) and status without an API key, and counts the visit', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { description: 'Mugs <b>&</b> tea' }));
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Mugs &lt;b>&amp;&lt;/b> tea');
    expect(page.body).not.toContain('<b>');
    expect(page.body).toContain('Active');
    await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` });
    expect((await details(ctx, ref)).visitCount).toBe(2);
    await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: ref });
    expect((await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` })).body).toContain('Disabled');
  });

  it('counts every one of many views that arrive together, each link its own (§Link status; docs/performance.md: one statement counts them)', async () => {
    const [a, b] = [await createLink(ctx, payByLink(ctx)), await createLink(ctx, payByLink(ctx))];
    const views = [...Array.from({ length: 7 }, () => a), ...Array.from({ length: 3 }, () => b), 'pl_doesnotexist0000000000'];
    const pages = await Promise.all(views.map((ref) => ctx.app.inject({ method: 'GET', url: `/pay/${ref}` })));
    expect(pages.map((p) => p.statusCode)).toEqual([...Array.from({ length: 10 }, () => 200), 404]);
    expect((await details(ctx, a)).visitCount).toBe(7);
    expect((await details(ctx, b)).visitCount).toBe(3);
  });

  it('answers junk references 404 and never lets them spoil the views that arrive with them (§Link status)', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const urls = [`/pay/${ref}`, '/pay/%00', `/pay/${'x'.repeat(300)}`, '/pay/a%20b', `/pay/${ref}`];
    const pages = await Promise.all(urls.map((url) => ctx.app.inject({ method: 'GET', url })));
    expect(pages.map((p) => p.statusCode)).toEqual([200, 404, 404, 404, 200]);
    expect((await details(ctx, ref)).visitCount).toBe(2);
  });

  it('answers an unknown reference with a 404 page', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/pay/pl_unknown' });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });
});
