import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import { formatDateTime as dateTime, formatMoney as money } from '../../src/html/format.js';
import { waitingAuthorisations } from '../../src/payments/authorisations/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { capture, paidSession, testProcessor } from '../modifications/helpers.js';
import { portalUser, rowOf, textOf, type PortalBrowser } from './helpers.js';

// Authorisations waiting for capture in the portal (docs/portal.md): the overview's panel, the list
// with each one's expiry, those expiring within a day, and a payment's page once its authorisation
// has expired (docs/api.md, Authorisations expire), in English and Icelandic.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date('2026-05-01T10:00:00Z').getTime();
const END = T0 + 8 * DAY;
const LIST = '/portal/payments/authorisations';
/** Money and times as textOf reads them: a no-break space is a space. */
const formatMoney = (...a: Parameters<typeof money>): string => money(...a).replace(/\s+/g, ' ');
const formatDateTime = (...a: Parameters<typeof dateTime>): string => dateTime(...a).replace(/\s+/g, ' ');

describe('authorisations waiting for capture in the portal', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  let staff: PortalBrowser;
  let expired: string;
  let soon: string;
  let krona: string;
  let partly: string;
  let atOnce: string;
  let others: string;

  const at = (ms: number) => ctx.clock.set(new Date(ms));

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    processor = testProcessor(ctx);
    at(T0);
    const early = (await portalUser(ctx, 'staff')).browser;
    expect(textOf((await early.get('/portal')).body)).not.toContain('Waiting for capture');

    expired = (await paidSession(ctx, { isManualCapture: true, reference: 'order-expired' })).payfacReference;
    at(T0 + 1.5 * DAY);
    soon = (await paidSession(ctx, { isPreAuth: true, amount: 20000, reference: 'order-soon' })).payfacReference;
    at(T0 + 3 * DAY);
    krona = (await paidSession(ctx, { isManualCapture: true, currency: 'ISK', amount: 990000, reference: 'order-isk' })).payfacReference;
    atOnce = (await paidSession(ctx, { reference: 'order-at-once' })).payfacReference;
    const other = await createMerchant(ctx.tdb.db, 'Other merchant');
    others = (await paidSession({ ...ctx, merchant: other }, { isManualCapture: true })).payfacReference;
    at(END - HOUR);
    partly = (await paidSession(ctx, { isManualCapture: true, reference: 'order-partly' })).payfacReference;
    expect((await capture(ctx, partly, 5000)).status).toBe(200);
    await processor.settled();
    at(END);
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await processor.stop();
    await ctx?.close();
  });

  it('the overview says how many and how much wait per currency, and how many expire within a day', async () => {
    const text = textOf((await staff.get('/portal')).body);
    expect(text).toContain('Waiting for capture');
    // EUR: 200.00 (the pre-authorisation) + 123.45 − 50.00 (the one partly captured).
    expect(text).toContain(`${formatMoney(27345, 'EUR', 'en')} 2 authorisations 1 expires within a day`);
    expect(text).toContain(`${formatMoney(990000, 'ISK', 'en')} 1 authorisation`);
    expect(staff.html).toContain(`href="${LIST}"`);
    expect(staff.html).toContain(`href="${LIST}?soon=1"`);
  });

  it('lists them newest first with what each still holds and when it expires; "within a day" lists only those', async () => {
    const res = await staff.get(LIST);
    expect(res.statusCode).toBe(200);
    const html = res.body;
    const order = [partly, krona, soon].map((r) => html.indexOf(`/portal/payments/${r}"`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    for (const absent of [expired, atOnce, others]) expect(html).not.toContain(absent);
    const text = textOf(html);
    expect(text).toContain('Authorisations waiting for capture');
    expect(text).toContain('7 days after it was authorised');
    expect(text).toContain(`${formatDateTime(new Date(T0 + 8.5 * DAY), 'en')} Within a day ${formatMoney(20000, 'EUR', 'en')}`);
    expect(text).toContain(`${formatMoney(7345, 'EUR', 'en')} of ${formatMoney(12345, 'EUR', 'en')}`);
    expect(text.match(/Within a day/g)).toHaveLength(1);
    expect(text).toContain('order-soon · Pre-authorisation');

    const within = await staff.get(`${LIST}?soon=1`);
    expect(within.body).toContain(`/portal/payments/${soon}"`);
    for (const absent of [partly, krona]) expect(within.body).not.toContain(absent);
    expect(within.body).toMatch(/<a href="\/portal\/payments\/authorisations\?soon=1" aria-current="page">/);
  });

  it('pages by keyset, one row a page both ways', async () => {
    const svc = { db: ctx.tdb.db, clock: ctx.clock, config: ctx.config };
    const seen: string[] = [];
    let page = await waitingAuthorisations(svc, ctx.merchant.merchantId, false, null, 1);
    seen.push(...page.authorisations.map((a) => a.payfacReference));
    while (page.older) {
      const [t, r] = [page.older.slice(0, 27), page.older.slice(28)];
      page = await waitingAuthorisations(svc, ctx.merchant.merchantId, false, { direction: 'older', at: t, reference: r }, 1);
      seen.push(...page.authorisations.map((a) => a.payfacReference));
    }
    expect(seen).toEqual([partly, krona, soon]);
    const newer = page.newer ?? '';
    const back = await waitingAuthorisations(
      svc,
      ctx.merchant.merchantId,
      false,
      { direction: 'newer', at: newer.slice(0, 27), reference: newer.slice(28) },
      1,
    );
    expect(back.authorisations.map((a) => a.payfacReference)).toEqual([krona]);
  });

  it('a payment whose authorisation expired shows it where the capture form was, and a capture posted anyway is refused', async () => {
    const path = `/portal/payments/${expired}`;
    const page = await staff.get(path);
    const text = textOf(page.body);
    const when = formatDateTime(new Date(T0 + 7 * DAY), 'en');
    expect(text).toContain(`Authorisation expired ${when}`);
    expect(text).toContain(`The authorisation expired on ${when}: what was not captured has been released and can no longer be captured or adjusted.`);
    expect(page.body).not.toContain(`action="${path}/capture"`);
    expect(page.body).not.toContain(`action="${path}/adjust"`);
    expect(text).toContain(
      `What happened ${formatDateTime(new Date(T0), 'en', { seconds: true })} Authorised, €123.45 ${formatDateTime(new Date(T0 + 7 * DAY), 'en', { seconds: true })} Authorisation expired: what was not captured was released`,
    );
    // A reversal is still offered (docs/api.md, Authorisations expire).
    expect(page.body).toContain(`href="${path}/reverse"`);

    // A page loaded before the expiry posts its capture after it.
    const res = await staff.post(`${path}/capture`, { amount: '10', reference: 'late' });
    expect(res.statusCode).toBe(409);
    expect(textOf(res.body)).toContain(`Refused: the authorisation expired on ${when}.`);
    const { rows } = await ctx.tdb.db.pool.query('SELECT count(*)::int AS n FROM modifications WHERE original_payfac_reference = $1', [expired]);
    expect(rows[0]).toEqual({ n: 0 });

    // One that has not expired shows when it will, and takes its capture.
    const waiting = textOf((await staff.get(`/portal/payments/${soon}`)).body);
    expect(waiting).toContain(`Authorisation expires ${formatDateTime(new Date(T0 + 8.5 * DAY), 'en')}`);
    expect((await staff.post(`/portal/payments/${soon}/capture`, { amount: '200', reference: 'in time' })).statusCode).toBe(303);
  });

  it('the payments list, the overview and a payment’s page badge an expired authorisation as expired, not as authorised', async () => {
    const list = (await staff.get('/portal/payments')).body;
    expect(textOf(rowOf(list, expired))).toContain('Authorisation expired');
    expect(textOf(rowOf(list, expired))).not.toContain('Authorised');
    expect(textOf(rowOf(list, krona))).toContain('Authorised');
    expect(textOf(rowOf(list, atOnce))).toContain('Captured');
    expect(textOf(rowOf((await staff.get('/portal')).body, expired))).toContain('Authorisation expired');
    const page = textOf((await staff.get(`/portal/payments/${expired}`)).body);
    expect(page).toContain(`Authorisation expired ${formatMoney(12345, 'EUR', 'en')}`);
  });

  it('reads the same in Icelandic', async () => {
    await staff.get('/portal/account');
    expect((await staff.post('/portal/account/language', { language: 'is' })).statusCode).toBe(303);
    const overview = textOf((await staff.get('/portal')).body);
    expect(overview).toContain('Bíða innheimtu');
    expect(overview).toContain(`${formatMoney(990000, 'ISK', 'is')} 1 heimild`);
    const list = textOf((await staff.get(LIST)).body);
    expect(list).toContain('Heimildir sem bíða innheimtu');
    expect(list).toContain('7 dögum eftir að hún var veitt');
    const when = formatDateTime(new Date(T0 + 7 * DAY), 'is');
    const page = textOf((await staff.get(`/portal/payments/${expired}`)).body);
    expect(page).toContain(`Heimild rann út ${when}`);
    expect(page).toContain(`Heimildin rann út ${when}: það sem var ekki innheimt hefur verið losað`);
    const payments = (await staff.get('/portal/payments')).body;
    expect(textOf(rowOf(payments, expired))).toContain('Heimild rann út');
    expect(textOf(rowOf(payments, expired))).not.toContain('Heimiluð');
    expect(textOf(rowOf(payments, krona))).toContain('Heimiluð');
  });

  it('is open to every role that reads payments', async () => {
    const developer = (await portalUser(ctx, 'developer')).browser;
    const res = await developer.get(LIST);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`/portal/payments/${krona}"`);
  });
});
