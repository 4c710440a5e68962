import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { countRows, createLink, details, fieldsOf, payByLink, storedRow, tokenizeByLink } from './fixtures.js';

// A link's completionMessage, inactiveMessage and termsUrl through the API (docs/api.md, Messages and
// terms): optional on create, changed and cleared by update, read back only when set, every failing
// field in one answer. What the shopper's pages do with them is in test/checkout/messagesAndTerms.test.ts.

const CREATE = '/api/v1/paymentlinks/create';
const UPDATE = '/api/v1/paymentlinks/update';
const TEXTS = ['completionMessage', 'inactiveMessage', 'termsUrl'];

describe('a link’s messages and terms in the API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  const texts = {
    completionMessage: 'Thank you!\nYour jumper is posted within two days.',
    inactiveMessage: 'The spring sale is over. See shop.example for the autumn one.',
    termsUrl: 'https://shop.example/terms?v=2',
  };

  it('stores the three on create and reads them back', async () => {
    const ref = await createLink(ctx, payByLink(ctx, texts));
    expect(await details(ctx, ref)).toMatchObject(texts);
    const tokenize = await createLink(ctx, tokenizeByLink(ctx, { termsUrl: 'http://shop.example/card-terms' }));
    const link = await details(ctx, tokenize);
    expect(link.termsUrl).toBe('http://shop.example/card-terms');
    expect(link).not.toHaveProperty('completionMessage');
  });

  it('reads a link made without them exactly as before: no new keys, not even null ones', async () => {
    for (const body of [payByLink(ctx), payByLink(ctx, { completionMessage: null, inactiveMessage: null, termsUrl: null })]) {
      const ref = await createLink(ctx, body);
      const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${ref}`);
      for (const key of TEXTS) expect(r.body.paymentLink).not.toHaveProperty(key);
      expect(r.res.body).not.toMatch(/completionMessage|inactiveMessage|termsUrl/);
    }
  });

  it('refuses bad values, every failing field at once, and writes nothing', async () => {
    const before = await countRows(ctx, 'payment_links');
    const r = await call(
      ctx,
      'POST',
      CREATE,
      payByLink(ctx, {
        completionMessage: 'x'.repeat(501),
        inactiveMessage: 'Closed\u0007',
        termsUrl: 'ftp://shop.example/terms',
        amount: 0,
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining([
        { field: 'completionMessage', code: 'LENGTH' },
        { field: 'inactiveMessage', code: 'FORMAT' },
        { field: 'termsUrl', code: 'INVALID_URL' },
        { field: 'amount', code: 'RANGE' },
      ]),
    );
    expect(fieldsOf(r.body)).toHaveLength(5); // and the items no longer adding up to the amount
    type Case = [value: Record<string, unknown>, field: string, code: string];
    const cases: Case[] = [
      [{ completionMessage: '' }, 'completionMessage', 'LENGTH'],
      [{ completionMessage: ' \n\t ' }, 'completionMessage', 'BLANK'],
      [{ inactiveMessage: 42 }, 'inactiveMessage', 'TYPE'],
      [{ termsUrl: 'shop.example/terms' }, 'termsUrl', 'INVALID_URL'],
      [{ termsUrl: `https://shop.example/${'a'.repeat(2030)}` }, 'termsUrl', 'INVALID_URL'],
    ];
    for (const [value, field, code] of cases) {
      const one = await call(ctx, 'POST', CREATE, payByLink(ctx, value));
      expect(one.status, JSON.stringify(value)).toBe(400);
      // The terms' address has no operation code of its own: alone, it is a VALIDATION_FAILED (not INVALID_RETURN_URL).
      expect(one.body.code).toBe('VALIDATION_FAILED');
      expect(fieldsOf(one.body)).toEqual([{ field, code }]);
    }
    expect(await countRows(ctx, 'payment_links')).toBe(before);
  });

  it('takes line breaks and tabs, and 500 characters', async () => {
    const message = `${'a'.repeat(496)}\r\n\tb`;
    expect(message).toHaveLength(500);
    const ref = await createLink(ctx, payByLink(ctx, { completionMessage: message }));
    expect((await details(ctx, ref)).completionMessage).toBe(message);
  });

  it('takes any-case names and null as absent, as the clients in the field send them (§Clients in the field)', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { CompletionMessage: 'Takk!', TERMSURL: 'https://shop.example/t', inactiveMessage: null }));
    const link = await details(ctx, ref);
    expect(link).toMatchObject({ completionMessage: 'Takk!', termsUrl: 'https://shop.example/t' });
    expect(link).not.toHaveProperty('inactiveMessage');
  });

  it('update: sets, changes, keeps what is left out, clears with null, and takes a value sent back as read', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const update = (body: Record<string, unknown>) => call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, ...body });
    expect((await update(texts)).status).toBe(200);
    expect(await details(ctx, ref)).toMatchObject(texts);

    expect((await update({ completionMessage: 'Posted tomorrow.' })).status).toBe(200);
    expect(await details(ctx, ref)).toMatchObject({ ...texts, completionMessage: 'Posted tomorrow.' });

    expect((await update({ inactiveMessage: null, termsUrl: null })).status).toBe(200);
    const cleared = await details(ctx, ref);
    expect(cleared.completionMessage).toBe('Posted tomorrow.');
    expect(cleared).not.toHaveProperty('inactiveMessage');
    expect(cleared).not.toHaveProperty('termsUrl');

    // A read-modify-write of the link as read (less its submissions, which no update takes).
    const { submissions: _submissions, ...asRead } = cleared;
    expect((await call(ctx, 'POST', UPDATE, { ...asRead, description: 'Changed' })).status).toBe(200);
    expect(await details(ctx, ref)).toMatchObject({ description: 'Changed', completionMessage: 'Posted tomorrow.' });
  });

  it('update refuses bad values together with the other fields’ errors, and changes nothing', async () => {
    const ref = await createLink(ctx, payByLink(ctx, texts));
    const before = await storedRow(ctx, ref);
    const r = await call(ctx, 'POST', UPDATE, {
      paymentLinkReference: ref,
      completionMessage: '   ',
      inactiveMessage: 'y'.repeat(501),
      termsUrl: 'javascript:alert(1)',
      maxSalesCount: 0,
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining([
        { field: 'completionMessage', code: 'BLANK' },
        { field: 'inactiveMessage', code: 'LENGTH' },
        { field: 'termsUrl', code: 'INVALID_URL' },
        { field: 'maxSalesCount', code: 'RANGE' },
      ]),
    );
    expect(await storedRow(ctx, ref)).toEqual(before);
  });

  it('sets an inactive message on a link that is already disabled only as any update would: not at all (409)', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: ref })).status).toBe(200);
    const r = await call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, inactiveMessage: 'Gone' });
    expect(r.status).toBe(409);
  });

  it('keeps the three with the Idempotency-Key: a retry answers the first link', async () => {
    const headers = { 'Idempotency-Key': 'texts-1' };
    const first = await call(ctx, 'POST', CREATE, payByLink(ctx, texts), { headers });
    const again = await call(ctx, 'POST', CREATE, payByLink(ctx, texts), { headers });
    expect(again.body.paymentLinkReference).toBe(first.body.paymentLinkReference);
    const other = await call(ctx, 'POST', CREATE, payByLink(ctx, { ...texts, termsUrl: 'https://shop.example/other' }), { headers });
    expect(other.status).toBe(409);
  });
});
