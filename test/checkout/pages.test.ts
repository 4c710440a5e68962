import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, createSession, eventsOf, linkDetails, payByLink, Shopper, sessionStatus } from './fixtures.js';

// The shopper's pages through app.inject (§References and URLs, §Link status, §Hosted checkout, §The simulated acquirer, §Events): what they show, what a form post
// records, and the events it raises. The same flows in a real browser are in browser.test.ts.

const LABELLED = (html: string) => {
  const ids = [...html.matchAll(/<(?:input|textarea)(?![^>]*type="hidden")[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
  const labels = new Set([...html.matchAll(/<label for="([^"]+)"/g)].map((m) => m[1]));
  return ids.filter((id) => !labels.has(id));
};

function receiptPath(location: string | undefined): string {
  expect(location).toMatch(/\/receipt\?p=\d+&s=/);
  return location as string;
}

function payfacOf(location: string): string {
  return new URL(location, 'http://x').searchParams.get('p') as string;
}

describe('payment link page (§Link status, §The simulated acquirer)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows merchant, description, items and the ISK total without decimals, in Icelandic by default, and counts each view', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { description: 'Peysa <b>&</b> húfa' }));
    const s = new Shopper(ctx);
    const page = await s.get(`/pay/${ref}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(page.body).toContain('<html lang="is">');
    expect(page.body).toContain('Test merchant');
    // Escaped by the renderer: no tag of the merchant's text reaches the page (">" needs no escape in text).
    expect(page.body).toContain('Peysa &lt;b>&amp;&lt;/b> húfa');
    expect(page.body).not.toContain('<b>');
    // Intl separates the amount and the currency with a no-break space.
    const text = page.body.replace(/\u00a0/g, ' ');
    expect(text).toContain('<td class="num" data-total aria-live="polite">489 kr.</td>');
    expect(text).toContain('<del data-full>494 kr.</del>');
    expect(text).toMatch(/<button type="submit" data-pay="Greiða \{amount\}">Greiða 489 kr\.<\/button>/);
    expect(page.body).toContain('<label for="cardNumber">Kortanúmer</label>');
    expect(LABELLED(page.body)).toEqual([]);
    // One script, our own file, deferred: nothing inline.
    expect(page.body.match(/<script[^>]*>/g)).toEqual(['<script src="/assets/checkout.js" defer>']);
    await s.get(`/pay/${ref}`);
    expect((await linkDetails(ctx, ref)).visitCount).toBe(2);
  });

  it('sends a strict CSP and the other security headers; serves its CSS itself', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` });
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.headers['cache-control']).toBe('no-store');
    const css = await ctx.app.inject({ method: 'GET', url: '/assets/checkout.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.body).toContain('.theme-dark');
  });

  it('speaks English for culture en (every label), and switches language by ?lang=', async () => {
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        currency: 'EUR',
        amount: 1250,
        items: [{ name: 'Tea', quantity: 1, unitPrice: 1250, amountWithoutDiscount: 1250, amount: 1250 }],
      }),
    );
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` });
    expect(page.body).toContain('<html lang="en">');
    for (const label of ['Card number', 'Expiry date', 'CVC', 'Total', 'Order summary']) expect(page.body).toContain(label);
    expect(page.body).toMatch(/<button type="submit" data-pay="Pay \{amount\}">Pay €12\.50<\/button>/);
    const is = await ctx.app.inject({ method: 'GET', url: `/pay/${ref}?lang=is` });
    expect(is.body).toContain('<html lang="is">');
    expect(is.body).toContain('Greiða 12,50');
  });

  it('applies the theme of themeKey; an unknown key gets the default', async () => {
    const dark = await createLink(ctx, payByLink(ctx, { themeKey: 'dark' }));
    expect((await ctx.app.inject({ method: 'GET', url: `/pay/${dark}` })).body).toContain('class="theme-dark"');
    const odd = await createLink(ctx, payByLink(ctx, { themeKey: 'no-such-theme' }));
    expect((await ctx.app.inject({ method: 'GET', url: `/pay/${odd}` })).body).toContain('class="theme-default"');
  });

  it('pays with 4242: receipt, return to returnUrl, salesCount, submission, Authorization and Capture events in one go', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { shopperInfo: [{ field: 'FullName', requirementType: 'Optional' }] }));
    const s = new Shopper(ctx);
    const res = await s.payWith(`/pay/${ref}`, '4242 4242 4242 4242', { 'shopper-FullName': 'Anna Jónsdóttir' });
    expect(res.statusCode, res.body).toBe(303);
    const location = receiptPath(res.headers.location as string);
    const payfac = payfacOf(location);
    const receipt = await s.get(location);
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain(payfac);
    expect(receipt.body).toContain('4242');
    expect(receipt.body).toContain('<meta http-equiv="refresh" content="5; url=https://shop.example/thanks?order=7"/>');
    expect(receipt.body).toContain('href="https://shop.example/thanks?order=7"');

    const link = await linkDetails(ctx, ref);
    expect(link.salesCount).toBe(1);
    expect(link.status).toBe('Active');
    expect(link.submissions).toEqual([
      { answers: [{ field: 'FullName', value: 'Anna Jónsdóttir' }], completed: true, amount: 48900, currency: 'ISK', token: null, payfacReference: payfac },
    ]);
    const events = await eventsOf(ctx, payfac);
    expect(events.map((e) => e.event_type).sort()).toEqual(['Authorization', 'Capture']);
    const auth = events.find((e) => e.event_type === 'Authorization')?.message;
    // The paying visit is a checkout of its own: both events carry its reference.
    const capture = events.find((e) => e.event_type === 'Capture')?.message;
    expect(capture?.checkoutReference).toBe(auth?.checkoutReference);
    expect(auth).toMatchObject({
      checkoutReference: expect.stringMatching(/^cs_[A-Za-z0-9_-]{22}$/),
      payfacReference: payfac,
      merchantReference: ref,
      amount: '48900',
      currency: 'ISK',
      reason: null,
      success: 'true',
      additionalData: {
        eventType: 'Authorization',
        cardNumber: '424242******4242',
        cardSummary: '4242',
        paymentMethod: 'visa',
        threeDAuthenticated: 'false',
        authCode: expect.stringMatching(/^\d{6}$/),
      },
    });
  });

  it('says the reason for a refusal in Icelandic on an Icelandic page', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const s = new Shopper(ctx);
    for (const [card, reason] of [
      ['4000000000000002', 'kortinu var hafnað'],
      ['4000000000000069', 'kortið er útrunnið'],
    ] as const) {
      const res = await s.payWith(`/pay/${ref}`, card);
      expect(res.body).toContain(`Greiðslunni var hafnað: ${reason}.`);
      expect(res.body).not.toMatch(/Refused|Expired Card/);
    }
  });

  it('shows a refusal with its reason and lets the shopper try again; records the failed attempt', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const s = new Shopper(ctx);
    // The acquirer's reason, in the page's words (kept as the acquirer gave it on the payment and its event, below).
    for (const [card, reason] of [
      ['4000000000000002', 'the card was declined'],
      ['4000000000000069', 'the card has expired'],
      ['4000000000003063', 'the bank did not confirm it was you'],
      ['4111111111111111', 'the card was declined'],
    ] as const) {
      const res = await s.payWith(`/pay/${ref}`, card);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`The payment was refused: ${reason}.`);
      expect(res.body).toContain('role="alert"');
      expect(res.body).toContain('name="cardNumber"');
      expect(res.body).not.toContain(card);
    }
    const ok = await s.post(`/pay/${ref}`, { cardNumber: '4242424242424242', expiryDate: '01/2040', cvc: '999' });
    expect(ok.statusCode).toBe(303);
    const link = await linkDetails(ctx, ref);
    expect(link.salesCount).toBe(1);
    const subs = link.submissions as { completed: boolean; payfacReference: string | null }[];
    expect(subs.map((x) => x.completed)).toEqual([false, false, false, false, true]);
    expect(subs.slice(0, 4).every((x) => x.payfacReference === null)).toBe(true);
    const events = (await eventsOf(ctx, ref)).filter((e) => e.event_type === 'Authorization');
    expect(events.map((e) => [e.message.success, e.message.reason])).toEqual(
      expect.arrayContaining([
        ['false', 'Refused'],
        ['false', 'Expired Card'],
        ['false', '3D Not Authenticated'],
        ['true', null],
      ]),
    );
    expect(events).toHaveLength(5);
  });

  it('runs the 3-D Secure step for 4000000000003220: confirm pays (threeDAuthenticated true), the step is used once, cancel refuses', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const s = new Shopper(ctx);
    const step = await s.payWith(`/pay/${ref}`, '4000 0000 0000 3220');
    expect(step.statusCode).toBe(200);
    expect(step.body).toContain('Confirm with your bank');
    expect(step.body).toContain('ending in 3220');
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
    expect((await linkDetails(ctx, ref)).salesCount).toBe(0);
    const done = await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm' });
    expect(done.statusCode).toBe(303);
    const payfac = payfacOf(done.headers.location as string);
    const auth = (await eventsOf(ctx, payfac)).find((e) => e.event_type === 'Authorization')?.message;
    expect(auth).toMatchObject({ success: 'true', additionalData: { threeDAuthenticated: 'true', cardSummary: '3220' } });
    const again = await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm' });
    expect(again.statusCode).toBe(410);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(1);

    const step2 = await s.payWith(`/pay/${ref}`, '4000000000003220');
    const challenge2 = /name="challenge" value="([^"]+)"/.exec(step2.body)?.[1] as string;
    const cancelled = await s.post(`/pay/${ref}/3ds`, { challenge: challenge2, action: 'cancel' });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.body).toContain('You cancelled the confirmation with your bank. Nothing was charged');
    expect(cancelled.body).not.toContain('refused');
    expect((await linkDetails(ctx, ref)).salesCount).toBe(1);
  });

  it('enforces shopper info by requirementType: Hidden not shown, Required enforced, Prefilled read-only and kept', async () => {
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        shopperInfo: [
          { field: 'Ssn', requirementType: 'Required' },
          { field: 'EmailAddress', requirementType: 'Optional' },
          { field: 'Comments', requirementType: 'Hidden' },
          { field: 'City', requirementType: 'Prefilled', prefilledValue: 'Reykjavík' },
        ],
      }),
    );
    const s = new Shopper(ctx);
    const page = await s.get(`/pay/${ref}`);
    expect(page.body).toContain('<label for="shopper-Ssn">National ID number (kennitala)');
    expect(page.body).toMatch(/id="shopper-Ssn" name="shopper-Ssn" required/);
    expect(page.body).not.toContain('shopper-Comments');
    expect(page.body).toMatch(/id="shopper-City" name="shopper-City" readonly[^>]*value="Reykjavík"/);
    expect(LABELLED(page.body)).toEqual([]);

    const missing = await s.post(`/pay/${ref}`, { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123', 'shopper-Ssn': '' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('id="shopper-Ssn-error"');
    expect(missing.body).toContain('Please fill in this field.');
    const badEmail = await s.post(`/pay/${ref}`, {
      cardNumber: '4242424242424242',
      expiryDate: '12/39',
      cvc: '123',
      'shopper-Ssn': '0101302989',
      'shopper-EmailAddress': 'nope',
    });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.body).toContain('value="0101302989"');
    // Two addresses in one: refused beside the field, as the API and the receipts refuse it (src/emailAddress.ts).
    const twoAddresses = await s.post(`/pay/${ref}`, {
      cardNumber: '4242424242424242',
      expiryDate: '12/39',
      cvc: '123',
      'shopper-Ssn': '0101302989',
      'shopper-EmailAddress': 'anna,jon@example.is',
    });
    expect(twoAddresses.statusCode).toBe(400);
    expect(twoAddresses.body).toContain('id="shopper-EmailAddress-error"');
    expect((await linkDetails(ctx, ref)).submissions).toEqual([]);

    const ok = await s.post(`/pay/${ref}`, {
      cardNumber: '4242424242424242',
      expiryDate: '12/39',
      cvc: '123',
      'shopper-Ssn': '010130-2989',
      'shopper-City': 'Akureyri (tampered)',
      'shopper-Comments': 'sneaky',
    });
    expect(ok.statusCode).toBe(303);
    const subs = (await linkDetails(ctx, ref)).submissions as { answers: unknown }[];
    expect(subs[0]?.answers).toEqual([
      { field: 'Ssn', value: '010130-2989' },
      { field: 'City', value: 'Reykjavík' },
    ]);
  });

  it('checks the card fields before anything is sent: no payment, no event, no card echoed', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const s = new Shopper(ctx);
    const res = await s.payWith(`/pay/${ref}`, '4242424242424241', { expiryDate: '01/20', cvc: '12' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Enter a valid card number.');
    expect(res.body).toContain('Enter a valid expiry date');
    expect(res.body).toContain('Enter the 3-digit security code.');
    expect(res.body).not.toContain('4242424242424241');
    expect(await eventsOf(ctx, ref)).toEqual([]);
  });

  it('refuses a form without the CSRF cookie, or with a token of another page', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const other = await createLink(ctx, payByLink(ctx));
    const s = new Shopper(ctx);
    await s.get(`/pay/${other}`);
    const otherToken = s.csrf;
    await s.get(`/pay/${ref}`);
    const wrongPage = await s.post(`/pay/${ref}`, { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' }, { csrf: otherToken });
    expect(wrongPage.statusCode).toBe(403);
    const noCookie = await ctx.app.inject({
      method: 'POST',
      url: `/pay/${ref}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: s.csrf, cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' }).toString(),
    });
    expect(noCookie.statusCode).toBe(403);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(0);
  });

  it('a used, expired or disabled link says why and shows no form; a post takes no payment', async () => {
    const used = await createLink(ctx, payByLink(ctx, { culture: 'en', exactSalesCount: 1 }));
    const s = new Shopper(ctx);
    expect((await s.payWith(`/pay/${used}`, '4242424242424242')).statusCode).toBe(303);
    const page = await s.get(`/pay/${used}`);
    expect(page.body).toContain('used the maximum number of times');
    expect(page.body).not.toContain('<form');
    const late = await s.post(`/pay/${used}`, { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' });
    expect(late.statusCode).toBe(409);
    expect(late.body).not.toContain('<form');
    expect((await linkDetails(ctx, used)).salesCount).toBe(1);

    const expiring = await createLink(ctx, payByLink(ctx, { culture: 'en', expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString() }));
    ctx.clock.advance(60_000);
    const expired = await ctx.app.inject({ method: 'GET', url: `/pay/${expiring}` });
    expect(expired.body).toContain('This payment link has expired.');
    expect(expired.body).not.toContain('<form');

    const disabled = await createLink(ctx, payByLink(ctx));
    await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: disabled });
    const off = await ctx.app.inject({ method: 'GET', url: `/pay/${disabled}` });
    expect(off.body).toContain('óvirkan');
    expect(off.body).not.toContain('<form');
  });

  it('answers an unknown link with a 404 page', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/pay/pl_nope' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('TokenizeByLink saves the card without charging and becomes Completed (§Link status, §Events)', async () => {
    const ref = await createLink(ctx, {
      type: 'TokenizeByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 0,
      currency: 'ISK',
      items: [],
      recurringProcessingModel: 'CardOnFile',
      culture: 'en',
    });
    const s = new Shopper(ctx);
    const page = await s.get(`/pay/${ref}`);
    expect(page.body).toContain('No money is taken now.');
    expect(page.body).toMatch(/<button type="submit">Save card<\/button>/);
    const res = await s.post(`/pay/${ref}`, { cardNumber: '4242424242424242', expiryDate: '03/2031', cvc: '123' });
    expect(res.statusCode).toBe(303);
    const payfac = payfacOf(res.headers.location as string);
    const link = await linkDetails(ctx, ref);
    expect(link.status).toBe('Completed');
    const sub = (link.submissions as { token: string | null; completed: boolean; amount: number }[])[0];
    expect(sub).toMatchObject({ completed: true, amount: 0, token: expect.stringMatching(/^tok_/) });
    const events = await eventsOf(ctx, payfac);
    expect(events.map((e) => e.event_type).sort()).toEqual(['Authorization', 'Tokenization']);
    const tok = events.find((e) => e.event_type === 'Tokenization')?.message;
    expect(tok).toMatchObject({
      amount: '0',
      success: 'true',
      reason: 'Tokenized:4242:03/2031',
      additionalData: { token: sub?.token, cardSummary: '4242', paymentMethod: 'visa', authCode: expect.stringMatching(/^\d{6}$/) },
    });
    const again = await s.get(`/pay/${ref}`);
    expect(again.body).toContain('A card has already been saved with this link.');
  });
});

describe('checkout session page (§Hosted checkout)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows display lines (a discount, a fractional quantity), the shopper e-mail, and a cancel link to abandonUrl', async () => {
    const ref = await createSession(ctx, {
      items: [
        { name: 'Cake', amount: 13345, quantity: 1.5, unitPrice: 8897 },
        { name: 'Discount', amount: -1000 },
      ],
      shopperContact: { email: 'anna@example.is' },
      abandonUrl: 'https://shop.example/cart',
    });
    const page = await ctx.app.inject({ method: 'GET', url: `/checkout/${ref}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('€123.45');
    expect(page.body).toContain('-€10.00');
    expect(page.body).toContain('>1.5<');
    expect(page.body).toContain('value="anna@example.is"');
    expect(page.body).toContain('href="https://shop.example/cart"');
    expect(LABELLED(page.body)).toEqual([]);
  });

  it('is paid once: receipt, return to returnUrl with checkoutReference added, status Completed, events carry both references', async () => {
    const ref = await createSession(ctx, { reference: 'WC-1001 Ørder' });
    const s = new Shopper(ctx);
    const res = await s.payWith(`/checkout/${ref}`, '4242424242424242');
    expect(res.statusCode).toBe(303);
    const payfac = payfacOf(res.headers.location as string);
    const receipt = await s.get(res.headers.location as string);
    const back = `https://shop.example/return?order=17&amp;checkoutReference=${ref}`;
    expect(receipt.body).toContain(`href="${back}"`);
    expect(receipt.body).toContain(`url=${back}"`);
    expect(await sessionStatus(ctx, ref)).toMatchObject({ status: 'Completed', payfacReference: payfac });
    const events = await eventsOf(ctx, payfac);
    expect(events.map((e) => e.event_type).sort()).toEqual(['Authorization', 'Capture']);
    for (const e of events) expect(e.message).toMatchObject({ checkoutReference: ref, merchantReference: 'WC-1001 Ørder', amount: '12345', currency: 'EUR' });
    const again = await s.get(`/checkout/${ref}`);
    expect(again.body).toContain('This order has already been paid.');
    expect(again.body).not.toContain('<form');
    const late = await s.post(`/checkout/${ref}`, { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' });
    expect(late.statusCode).toBe(409);
  });

  it('without abandonUrl, cancel goes back to returnUrl with checkoutReference (status New tells the shop it is unpaid)', async () => {
    const ref = await createSession(ctx);
    const page = await ctx.app.inject({ method: 'GET', url: `/checkout/${ref}` });
    expect(page.body).toContain(`class="cancel" href="https://shop.example/return?order=17&amp;checkoutReference=${ref}"`);
  });

  it('a refused session stays New and can be paid again', async () => {
    const ref = await createSession(ctx);
    const s = new Shopper(ctx);
    const res = await s.payWith(`/checkout/${ref}`, '4000000000000002');
    expect(res.body).toContain('The payment was refused: the card was declined.');
    expect(await sessionStatus(ctx, ref)).toMatchObject({ status: 'New', payfacReference: null });
    expect((await s.post(`/checkout/${ref}`, { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' })).statusCode).toBe(303);
    expect((await sessionStatus(ctx, ref)).status).toBe('Completed');
  });

  it('manual capture raises no Capture; a capture delay is recorded as a scheduled capture; isPreAuth is not captured', async () => {
    const capturesOf = async (ref: string) =>
      (
        await ctx.tdb.db.pool.query<{ capture_state: string; capture_due_at: Date | null; is_pre_auth: boolean }>(
          'SELECT capture_state, capture_due_at, is_pre_auth FROM payments WHERE checkout_reference = $1',
          [ref],
        )
      ).rows[0];
    const manual = await createSession(ctx, { isManualCapture: true, captureHoursDelay: 5 });
    const m = await new Shopper(ctx).payWith(`/checkout/${manual}`, '4242424242424242');
    expect((await eventsOf(ctx, payfacOf(m.headers.location as string))).map((e) => e.event_type)).toEqual(['Authorization']);
    expect(await capturesOf(manual)).toMatchObject({ capture_state: 'Manual', capture_due_at: null });

    const delayed = await createSession(ctx, { captureHoursDelay: 5 });
    const d = await new Shopper(ctx).payWith(`/checkout/${delayed}`, '4242424242424242');
    expect((await eventsOf(ctx, payfacOf(d.headers.location as string))).map((e) => e.event_type)).toEqual(['Authorization']);
    const row = await capturesOf(delayed);
    expect(row?.capture_state).toBe('Scheduled');
    expect(row?.capture_due_at?.getTime()).toBe(ctx.clock.now().getTime() + 5 * 3600_000);

    const pre = await createSession(ctx, { isPreAuth: true });
    const p = await new Shopper(ctx).payWith(`/checkout/${pre}`, '4242424242424242');
    expect((await eventsOf(ctx, payfacOf(p.headers.location as string))).map((e) => e.event_type)).toEqual(['Authorization']);
    expect(await capturesOf(pre)).toMatchObject({ capture_state: 'Manual', is_pre_auth: true });
  });

  it('a session with recurringProcessingModel saves the card: Tokenization with the token; amount 0 saves only', async () => {
    const ref = await createSession(ctx, { recurringProcessingModel: 'Subscription', merchantShopperReference: 'shopper-1' });
    const r = await new Shopper(ctx).payWith(`/checkout/${ref}`, '4242424242424242', { expiryDate: '07/33' });
    const payfac = payfacOf(r.headers.location as string);
    const events = await eventsOf(ctx, payfac);
    expect(events.map((e) => e.event_type).sort()).toEqual(['Authorization', 'Capture', 'Tokenization']);
    expect(events.find((e) => e.event_type === 'Tokenization')?.message).toMatchObject({ reason: 'Tokenized:4242:07/2033', amount: '12345' });
    const { rows } = await ctx.tdb.db.pool.query(
      'SELECT merchant_shopper_reference, recurring_processing_model FROM payment_tokens WHERE payfac_reference = $1',
      [payfac],
    );
    expect(rows).toEqual([{ merchant_shopper_reference: 'shopper-1', recurring_processing_model: 'Subscription' }]);

    const zero = await createSession(ctx, { amount: 0, recurringProcessingModel: 'CardOnFile' });
    const page = await ctx.app.inject({ method: 'GET', url: `/checkout/${zero}` });
    expect(page.body).toContain('Save card');
    const z = await new Shopper(ctx).payWith(`/checkout/${zero}`, '4242424242424242');
    expect((await eventsOf(ctx, payfacOf(z.headers.location as string))).map((e) => e.event_type).sort()).toEqual(['Authorization', 'Tokenization']);
  });

  it('an expired session says so and shows no form', async () => {
    const ref = await createSession(ctx, { expiresAt: new Date(ctx.clock.now().getTime() + 1000).toISOString() });
    ctx.clock.advance(1000);
    const page = await ctx.app.inject({ method: 'GET', url: `/checkout/${ref}` });
    expect(page.body).toContain('This checkout has expired.');
    expect(page.body).not.toContain('<form');
  });

  it('serves an icon, linked from every page, so browsers get no 404 for it', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` });
    expect(page.body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      const icon = await ctx.app.inject({ method: 'GET', url });
      expect(icon.statusCode, url).toBe(200);
      expect(icon.headers['content-type'], url).toBe('image/svg+xml');
      expect(icon.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(icon.headers['cache-control']).toBe('public, max-age=3600');
    }
    const script = await ctx.app.inject({ method: 'GET', url: '/assets/checkout.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('titles each page with what is paid and to whom; a session names its order', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const link = (await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` })).body.replace(/\u00a0/g, ' ');
    expect(link).toContain('<title>Pay ISK 489 to Test merchant</title>');
    const session = await createSession(ctx, { reference: 'order-1042', culture: 'is' });
    const page = (await ctx.app.inject({ method: 'GET', url: `/checkout/${session}` })).body.replace(/\u00a0/g, ' ');
    expect(page).toContain('<title>Greiða 123,45 EUR til Test merchant</title>');
    expect(page).toContain('<h1>Greiðsla til Test merchant, pöntun order-1042</h1>');
  });

  it('after a refused card number keeps the expiry, never echoes the number or the code, and says to enter them again', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const s = new Shopper(ctx);
    await s.get(`/pay/${ref}`);
    const res = await s.post(`/pay/${ref}`, { cardNumber: '4242 4242 4242 4241', expiryDate: '11/31', cvc: '987' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/<input type="text" id="expiryDate" name="expiryDate"[^>]* value="11\/31"/);
    expect(res.body).not.toContain('4242 4242 4242 4241');
    expect(res.body).not.toContain('424242424242424');
    expect(res.body).not.toContain('987');
    expect(res.body).toMatch(/<input type="text" id="cardNumber" name="cardNumber"(?![^>]*value=)[^>]*aria-invalid="true"/);
    expect(res.body).toMatch(/<input type="text" id="cvc" name="cvc"(?![^>]*value=)[^>]*>/);
    expect(res.body).toContain('Please correct the marked fields. For your security, the card number and the security code are not kept: enter them again.');
    expect(res.body).toContain('<p class="error" id="cardNumber-error">Enter a valid card number.</p>');
  });
});
