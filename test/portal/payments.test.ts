import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { sessionBody, Shopper } from '../checkout/fixtures.js';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { csvCell } from '../../src/portal/payments/csv.js';
import { fieldId } from '../../src/portal/views/components.js';
import { CARD, paidSession, registerWebhook, testProcessor } from '../modifications/helpers.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// Payments in the portal (§The portal): the list and its filters, a payment's page (masked card,
// 3-D Secure, timeline, webhooks sent), capture, refund and reverse through the modifications
// service with the API's errors beside the amount, the CSV export, and who may do what.

async function count(ctx: TestContext, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

function errorBeside(html: string, field: string): string | undefined {
  const id = `${fieldId(field)}-error`;
  const m = new RegExp(`<p class="error" id="${id}">([\\s\\S]*?)</p>`).exec(html);
  return m ? textOf(m[1] ?? '') : undefined;
}

describe('payments in the portal', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  let staff: PortalBrowser;
  let developer: PortalBrowser;
  let captured: string;
  let manual: string;
  let refused: string;
  let otherPayment: string;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    processor = testProcessor(ctx);
    await registerWebhook(ctx);
    staff = (await portalUser(ctx, 'staff')).browser;
    developer = (await portalUser(ctx, 'developer')).browser;
    ctx.clock.set(new Date('2026-03-01T10:00:00Z'));
    captured = (await paidSession(ctx, { reference: 'order-captured' })).payfacReference;
    ctx.clock.set(new Date('2026-03-02T10:00:00Z'));
    manual = (await paidSession(ctx, { reference: 'order-manual', isManualCapture: true })).payfacReference;
    ctx.clock.set(new Date('2026-03-03T10:00:00Z'));
    refused = (await paidSession(ctx, { reference: 'order-refused' }, CARD.refused)).payfacReference;
    ctx.clock.set(new Date('2026-03-04T10:00:00Z'));
    await processor.settled();

    const other = await createMerchant(ctx.tdb.db, 'Other merchant');
    const made = await call(
      ctx,
      'POST',
      '/api/v1/hostedcheckout',
      { ...sessionBody(ctx), terminalIdentifier: other.terminalIdentifier, reference: 'not-yours' },
      { apiKey: other.apiKey },
    );
    expect(made.status).toBe(200);
    const otherSession = made.body.checkoutReference as string;
    expect((await new Shopper(ctx).payWith(`/checkout/${otherSession}`, CARD.ok)).statusCode).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE checkout_reference = $1', [
      otherSession,
    ]);
    otherPayment = rows[0]?.payfac_reference ?? '';
    expect(otherPayment).toMatch(/^\d{16}$/);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('lists every payment newest first with where it stands, and none of another merchant’s', async () => {
    const res = await staff.get('/portal/payments');
    expect(res.statusCode).toBe(200);
    const at = (ref: string) => res.body.indexOf(`/portal/payments/${ref}"`);
    expect(at(refused)).toBeGreaterThan(0);
    expect(at(refused)).toBeLessThan(at(manual));
    expect(at(manual)).toBeLessThan(at(captured));
    const text = textOf(res.body);
    expect(text).toMatch(/Refused/);
    expect(text).toMatch(/Authorised/);
    expect(text).toMatch(/Captured/);
    expect(text).toContain('€123.45');
    expect(res.body).not.toContain(otherPayment);
    expect(text).not.toContain('not-yours');
  });

  it('filters by status, by date and by reference; a date that is none is said beside its input', async () => {
    const byState = await staff.get('/portal/payments?state=authorised');
    expect(byState.body).toContain(manual);
    expect(byState.body).not.toContain(captured);
    expect(byState.body).not.toContain(refused);

    const byDate = await staff.get('/portal/payments?from=2026-03-02&until=2026-03-02');
    expect(byDate.body).toContain(manual);
    expect(byDate.body).not.toContain(captured);
    expect(byDate.body).not.toContain(refused);

    const byReference = await staff.get('/portal/payments?reference=order-captured');
    expect(byReference.body).toContain(captured);
    expect(byReference.body).not.toContain(manual);
    const byOwnReference = await staff.get(`/portal/payments?reference=${manual}`);
    expect(byOwnReference.body).toContain(`/portal/payments/${manual}"`);
    expect(byOwnReference.body).not.toContain(`/portal/payments/${captured}"`);
    const notMine = await staff.get(`/portal/payments?reference=${otherPayment}`);
    expect(textOf(notMine.body)).toContain('No payment matches the filter.');

    const bad = await staff.get('/portal/payments?from=2026-02-30');
    expect(bad.statusCode).toBe(400);
    expect(errorBeside(bad.body, 'from')).toBe('Use a date such as 2026-11-24.');
  });

  it('a payment’s page shows the masked card, 3-D Secure and its timeline; another merchant’s is not found', async () => {
    const res = await staff.get(`/portal/payments/${captured}`);
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('424242******4242');
    expect(text).not.toContain('4242424242424242');
    expect(text).toContain('3-D Secure');
    expect(text).toMatch(/Authorised, €123\.45/);
    expect(text).toContain('order-captured');
    expect(text).toContain('Authorisation');

    expect((await staff.get(`/portal/payments/${otherPayment}`)).statusCode).toBe(404);
    const refusedPage = textOf((await staff.get(`/portal/payments/${refused}`)).body);
    expect(refusedPage).toContain('Refused');
    expect(refusedPage).not.toContain('Capture, adjust, refund or reverse');
  });

  it('refunds over the limit are refused beside the amount, in money, and nothing is written', async () => {
    await staff.get(`/portal/payments/${captured}`);
    const before = await count(ctx, 'SELECT count(*)::int AS n FROM modifications');
    const over = await staff.post(`/portal/payments/${captured}/refund`, { amount: '200', reference: 'r-1', refundReason: '' });
    expect(over.statusCode).toBe(400);
    expect(errorBeside(over.body, 'amount')).toBe('At most €123.45 can be refunded.');
    const notAmount = await staff.post(`/portal/payments/${captured}/refund`, { amount: 'lots', reference: 'r-1', refundReason: '' });
    expect(notAmount.statusCode).toBe(400);
    expect(errorBeside(notAmount.body, 'amount')).toBe('Write an amount such as 49.90.');
    const noReference = await staff.post(`/portal/payments/${captured}/refund`, { amount: '10', reference: '', refundReason: '' });
    expect(noReference.statusCode).toBe(400);
    expect(errorBeside(noReference.body, 'reference')).toBeDefined();
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM modifications')).toBe(before);
  });

  it('a partial refund is received, audited, completed by the processor and its webhook is shown', async () => {
    await staff.get(`/portal/payments/${captured}`);
    const res = await staff.post(`/portal/payments/${captured}/refund`, { amount: '23.45', reference: 'refund-1', refundReason: 'RETURN' });
    expect(res.statusCode, res.body.slice(0, 400)).toBe(303);
    expect(res.headers.location).toBe(`/portal/payments/${captured}?done=refund`);
    const { rows } = await ctx.tdb.db.pool.query<{ amount: number; refund_reason: string; reference: string }>(
      "SELECT amount, refund_reason, reference FROM modifications WHERE original_payfac_reference = $1 AND kind = 'Refund'",
      [captured],
    );
    expect(rows).toEqual([{ amount: 2345, refund_reason: 'RETURN', reference: 'refund-1' }]);
    expect(await count(ctx, "SELECT count(*)::int AS n FROM audit_log WHERE action = 'payment.refund' AND target = $1", [captured])).toBe(1);
    expect(textOf((await staff.get(`/portal/payments/${captured}?done=refund`)).body)).toContain('Refund received');

    await processor.settled();
    const page = await staff.get(`/portal/payments/${captured}`);
    const text = textOf(page.body);
    expect(text).toContain('Partly refunded');
    expect(text).toMatch(/Refund of €23\.45 completed/);
    expect(text).toContain('At most €100.00 can be refunded.');
    // Each delivery names its webhook (registerWebhook's description).
    expect(text).toMatch(/Refund\s+modification tests\s+Pending/);
    // Staff reads which webhooks were sent, but the delivery's page is the developers' (no link).
    expect(page.body).not.toContain('/portal/webhooks/');
    const dev = await developer.get(`/portal/payments/${captured}`);
    expect(dev.body).toMatch(/href="\/portal\/webhooks\/[^"]+\/deliveries\/[^"]+"/);
    // A developer reads money but does not move it: no forms.
    expect(textOf(dev.body)).not.toContain('Capture, adjust, refund or reverse');
  });

  it('a manual-capture payment is captured in part, then reversed after a confirmation', async () => {
    await staff.get(`/portal/payments/${manual}`);
    const capture = await staff.post(`/portal/payments/${manual}/capture`, { amount: '100', reference: 'cap-1' });
    expect(capture.statusCode).toBe(303);
    await processor.settled();
    const confirm = await staff.get(`/portal/payments/${manual}/reverse`);
    expect(textOf(confirm.body)).toContain('Reverse this payment?');
    expect(textOf(confirm.body)).toContain('€100.00');
    const reverse = await staff.post(`/portal/payments/${manual}/reverse`, { reference: 'order-manual' });
    expect(reverse.statusCode).toBe(303);
    await processor.settled();
    const text = textOf((await staff.get(`/portal/payments/${manual}`)).body);
    expect(text).toMatch(/Reversed: €100\.00 refunded/);
    expect(text).toContain('This payment takes no more captures, refunds or reversals.');
    const again = await staff.post(`/portal/payments/${manual}/reverse`, { reference: 'order-manual' });
    expect(again.statusCode).toBe(409);
  });

  it('exports the filtered payments as CSV, a line each, cells a spreadsheet will not run', async () => {
    const res = await staff.get('/portal/payments/export.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'payfacReference,createdAt,status,amount,currency,capturedAmount,refundedAmount,paymentMethod,cardSummary,threeDSecure,paidThrough,paymentLinkReference,checkoutReference,merchantReference,refusalReason,customFields',
    );
    expect(lines).toHaveLength(4);
    const capturedLine = lines.find((l) => l.startsWith(captured));
    expect(capturedLine).toMatch(/,partlyRefunded,123\.45,EUR,123\.45,23\.45,visa,4242,/);
    expect(res.body).not.toContain(otherPayment);

    const filtered = await staff.get('/portal/payments/export.csv?state=refused');
    const rows = filtered.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(new RegExp(`^${refused},`));

    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell('-1+2')).toBe("'-1+2");
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(null)).toBe('');
  });

  it('a pre-authorisation is adjusted from its page: below what is captured is refused beside the amount, in money; the adjustment is audited and shown', async () => {
    const pre = (await paidSession(ctx, { reference: 'order-preauth', isPreAuth: true })).payfacReference;
    const page = await staff.get(`/portal/payments/${pre}`);
    expect(textOf(page.body)).toContain('Adjust the authorisation');
    expect(textOf(page.body)).toContain('Authorised now: €123.45.');
    // Nothing to adjust on a payment captured at once.
    expect(textOf((await staff.get(`/portal/payments/${captured}`)).body)).not.toContain('Adjust the authorisation');

    expect((await staff.post(`/portal/payments/${pre}/capture`, { amount: '20', reference: 'cap-1' })).statusCode).toBe(303);
    await processor.settled();
    const below = await staff.post(`/portal/payments/${pre}/adjust`, { amount: '19.99', reference: 'adj-1' });
    expect(below.statusCode).toBe(400);
    expect(errorBeside(below.body, 'amount')).toBe('The authorisation cannot be less than €20.00, what is captured.');

    const res = await staff.post(`/portal/payments/${pre}/adjust`, { amount: '150', reference: 'adj-1' });
    expect(res.statusCode, res.body.slice(0, 400)).toBe(303);
    expect(res.headers.location).toBe(`/portal/payments/${pre}?done=adjust`);
    expect(textOf((await staff.get(`/portal/payments/${pre}?done=adjust`)).body)).toContain('Authorisation adjustment received');
    expect(await count(ctx, "SELECT count(*)::int AS n FROM audit_log WHERE action = 'payment.adjust' AND target = $1", [pre])).toBe(1);
    await processor.settled();
    const text = textOf((await staff.get(`/portal/payments/${pre}`)).body);
    expect(text).toMatch(/Authorisation adjustment of €150\.00 completed/);
    // The authorisation as it stands, in the facts and the header; the timeline says it was adjusted.
    expect(text).toMatch(/Authorised amount\s*€150\.00/);
    expect(text).not.toMatch(/Authorised amount\s*€123\.45/);
    // Captures are now bounded by the adjusted amount: 150 − 20 left.
    expect(text).toContain('At most €130.00 can be captured.');
    expect(text).toMatch(/Adjustment\s+modification tests\s+Pending/);
    // The list shows it at the amount it holds now, as the page does.
    const row = (await staff.get(`/portal/payments?reference=${pre}`)).body;
    expect(textOf(row)).toContain('€150.00');
    expect(textOf(row)).not.toContain('€123.45');
    // A developer reads money but does not move it.
    expect(textOf((await developer.get(`/portal/payments/${pre}`)).body)).not.toContain('Adjust the authorisation');
  });
});
