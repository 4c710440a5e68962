import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { pay } from '../../src/checkout/shopper.js';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { portalUser, textOf, type PortalBrowser } from '../portal/helpers.js';
import { createLink, eventsOf, payByLink, Shopper } from './fixtures.js';

// What the shopper's pages do with a link's completionMessage, inactiveMessage and termsUrl (docs/api.md,
// Messages and terms), the acceptance time recorded with the payment, and the portal's payment page
// showing it. A link without them behaves as it always has; the webhook bodies are the same either way.

const CARD = '4242424242424242';

function payfacOf(location: string): string {
  return new URL(location, 'http://x').searchParams.get('p') as string;
}

async function termsAcceptedAt(ctx: TestContext, payfacReference: string): Promise<Date | null> {
  const { rows } = await ctx.tdb.db.pool.query<{ at: Date | null }>('SELECT terms_accepted_at AS at FROM payments WHERE payfac_reference = $1', [
    payfacReference,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0]?.at ?? null;
}

async function paymentsOn(ctx: TestContext, reference: string): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE payment_link_reference = $1', [reference]);
  return rows[0]?.n ?? 0;
}

describe('a link’s messages and terms on the shopper’s pages', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows the completion message on the receipt, keeps its line breaks, and waits for the shopper instead of returning by itself', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', completionMessage: 'Thank you!\nPosted within two days.' }));
    const s = new Shopper(ctx);
    const res = await s.payWith(`/pay/${ref}`, CARD);
    expect(res.statusCode).toBe(303);
    const receipt = await s.get(String(res.headers.location));
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toMatch(/<p class="merchant-message" data-completion-message>Thank you!\nPosted within two days.<\/p>/);
    expect(receipt.body).toContain('aria-label="A message from Test merchant"');
    expect(receipt.body).not.toContain('http-equiv="refresh"');
    expect(receipt.body).toContain('href="https://shop.example/thanks?order=7"');

    // In Icelandic too, and a link without a message still returns to the shop by itself.
    const isRef = await createLink(ctx, payByLink(ctx, { culture: 'is', completionMessage: 'Takk fyrir!' }));
    const isReceipt = await s.get(String((await s.payWith(`/pay/${isRef}`, CARD)).headers.location));
    expect(isReceipt.body).toContain('Takk fyrir!');
    expect(isReceipt.body).toContain('aria-label="Skilaboð frá Test merchant"');
    const plain = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const plainReceipt = await s.get(String((await s.payWith(`/pay/${plain}`, CARD)).headers.location));
    expect(plainReceipt.body).toContain('http-equiv="refresh"');
    expect(plainReceipt.body).not.toContain('data-completion-message');
  });

  it('shows the inactive message on a disabled, an expired and a used-up link, the generic sentence without one, and nothing of it while payable', async () => {
    const message = 'The spring sale is over.\nSee you in the autumn.';
    const s = new Shopper(ctx);
    const active = await createLink(ctx, payByLink(ctx, { culture: 'en', inactiveMessage: message, exactSalesCount: 1 }));
    const page = await s.get(`/pay/${active}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('The spring sale is over');

    // Used: the one sale made.
    expect((await s.payWith(`/pay/${active}`, CARD)).statusCode).toBe(303);
    const used = await s.get(`/pay/${active}`);
    expect(used.body).toContain(`data-status="Used" data-inactive-message>${message}</p>`);
    expect(used.body).not.toContain('used the maximum number of times');

    // Expired, by the clock.
    const expiresAt = new Date(ctx.clock.now().getTime() + 60_000).toISOString();
    const expiring = await createLink(ctx, payByLink(ctx, { culture: 'en', inactiveMessage: message, expiresAt }));
    ctx.clock.advance(61_000);
    const expired = await s.get(`/pay/${expiring}`);
    expect(expired.body).toContain(`data-status="Expired" data-inactive-message>${message}</p>`);

    // Disabled; and a post to it (409) shows the same words.
    const disabling = await createLink(ctx, payByLink(ctx, { culture: 'is', inactiveMessage: 'Lokað.' }));
    await s.get(`/pay/${disabling}`);
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: disabling })).status).toBe(200);
    const disabled = await s.get(`/pay/${disabling}`);
    expect(disabled.body).toContain('data-status="Disabled" data-inactive-message>Lokað.</p>');
    const posted = await s.post(`/pay/${disabling}`, { cardNumber: CARD, expiryDate: '12/39', cvc: '123' });
    expect(posted.statusCode).toBe(409);
    expect(posted.body).toContain('Lokað.');

    // Without one: the generic sentence, as before.
    const plain = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: plain })).status).toBe(200);
    const generic = await s.get(`/pay/${plain}`);
    expect(generic.body).toContain('This payment link has been disabled by the merchant.');
    expect(generic.body).not.toContain('data-inactive-message');
  });

  it('asks for the terms: a required box and a link to them; without the box ticked nothing is paid', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', termsUrl: 'https://shop.example/terms?v=2' }));
    const s = new Shopper(ctx);
    const page = await s.get(`/pay/${ref}`);
    expect(page.body).toContain(
      '<a href="https://shop.example/terms?v=2" target="_blank" rel="noopener noreferrer" data-terms>Read the terms of Test merchant</a>',
    );
    expect(page.body).toMatch(/<input type="checkbox" id="acceptTerms" name="acceptTerms" value="yes" required aria-required="true"\/?>/);
    expect(page.body).toContain('<label for="acceptTerms">I have read and accept the terms.</label>');

    const refused = await s.post(`/pay/${ref}`, { cardNumber: CARD, expiryDate: '12/39', cvc: '123', 'shopper-FullName': 'x' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<p class="error" id="acceptTerms-error">Accept the terms to pay.</p>');
    expect(refused.body).toMatch(/id="acceptTerms"[^>]*aria-invalid="true" aria-describedby="acceptTerms-error"/);
    expect(await paymentsOn(ctx, ref)).toBe(0);

    // Ticked but the card mistyped: the box stays ticked on the page shown again.
    const mistyped = await s.post(`/pay/${ref}`, { cardNumber: '4242', expiryDate: '12/39', cvc: '123', acceptTerms: 'yes' });
    expect(mistyped.statusCode).toBe(400);
    expect(mistyped.body).toMatch(/id="acceptTerms"[^>]*checked/);
    expect(mistyped.body).not.toContain('acceptTerms-error');

    const isRef = await createLink(ctx, payByLink(ctx, { culture: 'is', termsUrl: 'https://shop.example/skilmalar' }));
    const isPage = await s.get(`/pay/${isRef}`);
    expect(isPage.body).toContain('Lesa skilmála Test merchant');
    expect(isPage.body).toContain('Ég hef lesið skilmálana og samþykki þá.');
    const isRefused = await s.post(`/pay/${isRef}`, { cardNumber: CARD, expiryDate: '12/39', cvc: '123' });
    expect(isRefused.body).toContain('Samþykktu skilmálana til að greiða.');

    // A link without terms shows no box.
    const plain = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    expect((await s.get(`/pay/${plain}`)).body).not.toContain('acceptTerms');
  });

  it('records the moment of acceptance with the payment, shows it in the portal, and sends the same webhook bodies as a link without terms', async () => {
    ctx.clock.set(new Date('2027-06-01T12:00:00.000Z'));
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', termsUrl: 'https://shop.example/terms' }));
    const s = new Shopper(ctx);
    const res = await s.payWith(`/pay/${ref}`, CARD, { acceptTerms: 'yes' });
    expect(res.statusCode).toBe(303);
    const payfac = payfacOf(String(res.headers.location));
    expect(await termsAcceptedAt(ctx, payfac)).toEqual(new Date('2027-06-01T12:00:00.000Z'));

    const plain = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const plainPay = await s.payWith(`/pay/${plain}`, CARD, { acceptTerms: 'yes' });
    const plainPayfac = payfacOf(String(plainPay.headers.location));
    expect(await termsAcceptedAt(ctx, plainPayfac)).toBeNull();

    // The events of both payments have the same keys, in the same order, and no word of the terms.
    const shape = (events: { event_type: string; message: Record<string, unknown> }[]) =>
      events
        .map((e) => [e.event_type, Object.keys(e.message), Object.keys((e.message.additionalData ?? {}) as object)])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const withTerms = await eventsOf(ctx, payfac);
    expect(withTerms.length).toBeGreaterThan(0);
    expect(shape(withTerms)).toEqual(shape(await eventsOf(ctx, plainPayfac)));
    expect(JSON.stringify(withTerms)).not.toMatch(/terms/i);

    // Signed in at the clock's time, so that the portal session is as fresh as the payment.
    const staff: PortalBrowser = (await portalUser(ctx, 'staff')).browser;
    const portal = await staff.get(`/portal/payments/${payfac}`);
    expect(portal.statusCode).toBe(200);
    expect(textOf(portal.body)).toMatch(/Terms accepted\s+1 Jun 2027, 12:00:00/);
    expect(portal.body).toContain('datetime="2027-06-01T12:00:00');
    const portalPlain = await staff.get(`/portal/payments/${plainPayfac}`);
    expect(textOf(portalPlain.body)).not.toContain('Terms accepted');
  });

  it('through a 3-D Secure step: the moment recorded is the one the shopper accepted on the payment page', async () => {
    ctx.clock.set(new Date('2027-06-02T08:00:00.000Z'));
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', termsUrl: 'https://shop.example/terms' }));
    const s = new Shopper(ctx);
    const step = await s.payWith(`/pay/${ref}`, '4000000000003220', { acceptTerms: 'yes' });
    expect(step.statusCode).toBe(200);
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
    ctx.clock.advance(90_000);
    const done = await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm' });
    expect(done.statusCode).toBe(303);
    expect(await termsAcceptedAt(ctx, payfacOf(String(done.headers.location)))).toEqual(new Date('2027-06-02T08:00:00.000Z'));
  });

  it('decides on the locked link: terms added after the page was read are asked for, and nothing is paid', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: ref, termsUrl: 'https://shop.example/new-terms' })).status).toBe(
      200,
    );
    const deps = { db: ctx.tdb.db, clock: ctx.clock, acquirer: simulatorAcquirer, sealer: ctx.sealer, receiptsPerHour: ctx.config.receiptsPerHour };
    const from = { address: '192.0.2.1' };
    const card = { cardNumber: CARD, expiryDate: '12/39', cvc: '123' };
    const shopper = { answers: {}, acceptedTerms: false, customValues: {}, quantities: null };
    const refused = await pay(deps, { kind: 'link', reference: ref }, { card, shopper, from });
    expect(refused).toMatchObject({ kind: 'Invalid', card: [], problems: { terms: true, answers: {}, quantities: [], custom: {} } });
    // The page again shows the link as it now is: with its terms.
    expect(refused.kind === 'Invalid' && refused.checkoutable.termsUrl).toBe('https://shop.example/new-terms');
    expect(await paymentsOn(ctx, ref)).toBe(0);
    expect((await pay(deps, { kind: 'link', reference: ref }, { card, shopper: { ...shopper, acceptedTerms: true }, from })).kind).toBe('Authorised');
    expect(await paymentsOn(ctx, ref)).toBe(1);
  });
});
