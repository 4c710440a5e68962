import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { pay } from '../../src/checkout/shopper.js';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { Shopper, eventsOf } from '../checkout/fixtures.js';
import { countRows, createLink, details, fieldsOf, payByLink, storedRow, tokenizeByLink } from './fixtures.js';

// A link's customFields through the API and the payment page (docs/api.md, Custom fields): optional
// on create, replaced and cleared by update, read back only when set, every failing field in one
// answer; the shopper's answers checked on the page and by the payment, and kept with the submission
// and the payment. The portal's side is in test/portal/customFields.test.ts.

const CREATE = '/api/v1/paymentlinks/create';
const UPDATE = '/api/v1/paymentlinks/update';
const CARD = '4242424242424242';

const FIELDS = [
  { key: 'size', type: 'Dropdown', label: 'Stærð', labelEn: 'Size', required: true, options: ['S', 'M', 'L'] },
  { key: 'plate', type: 'Text', label: 'Bílnúmer', required: false, maxLength: 8 },
  { key: 'guests', type: 'Number', label: 'Fjöldi gesta', labelEn: 'Guests', required: false },
];

/** FIELDS as a link reads them: a Text's maxLength given, labelEn only when set. */
const READ = [
  { key: 'size', type: 'Dropdown', label: 'Stærð', labelEn: 'Size', required: true, options: ['S', 'M', 'L'] },
  { key: 'plate', type: 'Text', label: 'Bílnúmer', required: false, maxLength: 8 },
  { key: 'guests', type: 'Number', label: 'Fjöldi gesta', labelEn: 'Guests', required: false },
];

async function paymentAnswers(ctx: TestContext, reference: string): Promise<unknown[]> {
  const { rows } = await ctx.tdb.db.pool.query<{ a: unknown }>(
    'SELECT custom_field_answers AS a FROM payments WHERE payment_link_reference = $1 ORDER BY created_at, payfac_reference',
    [reference],
  );
  return rows.map((r) => r.a);
}

describe('a link’s custom fields in the API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('stores them on create and reads them back, in their order, a Text with its maxLength', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { customFields: FIELDS }));
    const link = await details(ctx, ref);
    expect(link.customFields).toEqual(READ);
    const text = await createLink(ctx, tokenizeByLink(ctx, { customFields: [{ key: 'note', type: 'text', label: 'Athugasemd', required: true }] }));
    expect((await details(ctx, text)).customFields).toEqual([{ key: 'note', type: 'Text', label: 'Athugasemd', required: true, maxLength: 255 }]);
  });

  it('reads a link made without them exactly as before: no new key, none on its submissions', async () => {
    for (const extra of [{}, { customFields: [] }, { customFields: null }]) {
      const ref = await createLink(ctx, payByLink(ctx, extra));
      await new Shopper(ctx).payWith(`/pay/${ref}`, CARD);
      const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${ref}`);
      expect(r.body.paymentLink).not.toHaveProperty('customFields');
      expect(r.res.body).not.toMatch(/customField/);
      expect((r.body.paymentLink as { submissions: unknown[] }).submissions).toHaveLength(1);
      expect(await paymentAnswers(ctx, ref)).toEqual([null]);
    }
  });

  it('refuses bad definitions, every failing field at once, and writes nothing', async () => {
    const before = await countRows(ctx, 'payment_links');
    const r = await call(
      ctx,
      'POST',
      CREATE,
      payByLink(ctx, {
        amount: 0,
        customFields: [
          { key: '1st', type: 'Text', label: 'x'.repeat(51), required: true, maxLength: 256 },
          { key: 'size', type: 'Dropdown', label: 'Stærð', required: 'yes' },
          { key: 'SIZE', type: 'Number', label: ' ', required: false, maxLength: 5, options: ['a'] },
          { key: 'c', type: 'Dropdown', label: 'Litur\u0007', required: false, options: ['Rauður', 'Rauður', ''] },
        ],
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    // A pattern is said in words, for the merchant who reads it beside the portal's input.
    expect(r.body.errors).toContainEqual({
      field: 'customFields[0].key',
      code: 'FORMAT',
      message: 'must start with a letter, then only letters, digits, _ or -',
    });
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining([
        { field: 'customFields', code: 'COUNT' },
        { field: 'customFields[0].key', code: 'FORMAT' },
        { field: 'customFields[0].label', code: 'LENGTH' },
        { field: 'customFields[0].maxLength', code: 'RANGE' },
        { field: 'customFields[1].required', code: 'TYPE' },
        { field: 'customFields[1].options', code: 'REQUIRED' },
        { field: 'customFields[2].key', code: 'DUPLICATE' },
        { field: 'customFields[2].label', code: 'BLANK' },
        { field: 'customFields[2].maxLength', code: 'NOT_ALLOWED' },
        { field: 'customFields[2].options', code: 'NOT_ALLOWED' },
        { field: 'customFields[3].label', code: 'FORMAT' },
        { field: 'customFields[3].options[1]', code: 'DUPLICATE' },
        { field: 'customFields[3].options[2]', code: 'LENGTH' },
        { field: 'amount', code: 'RANGE' },
      ]),
    );
    type Case = [value: unknown, field: string, code: string];
    const cases: Case[] = [
      [[{ key: 'a', type: 'Date', label: 'A', required: true }], 'customFields[0].type', 'ENUM'],
      [[{ key: 'a', type: 'Text', label: 'A' }], 'customFields[0].required', 'REQUIRED'],
      [[{ key: 'a', type: 'Text', label: 'A', required: true, extra: 1 }], 'customFields[0].extra', 'UNKNOWN_FIELD'],
      [[{ key: 'a', type: 'Dropdown', label: 'A', required: true, options: [] }], 'customFields[0].options', 'COUNT'],
      [
        [{ key: 'a', type: 'Dropdown', label: 'A', required: true, options: Array.from({ length: 11 }, (_, i) => `o${i}`) }],
        'customFields[0].options',
        'COUNT',
      ],
      [[{ key: 'a', type: 'Text', label: 'A', required: true, maxLength: 0 }], 'customFields[0].maxLength', 'RANGE'],
      [[{ key: 'a'.repeat(31), type: 'Text', label: 'A', required: true }], 'customFields[0].key', 'LENGTH'],
      [[{ key: 'a', type: 'Text', label: 'A', labelEn: '', required: true }], 'customFields[0].labelEn', 'LENGTH'],
      ['size', 'customFields', 'TYPE'],
    ];
    for (const [value, field, code] of cases) {
      const one = await call(ctx, 'POST', CREATE, payByLink(ctx, { customFields: value }));
      expect(one.status, JSON.stringify(value)).toBe(400);
      expect(fieldsOf(one.body), JSON.stringify(value)).toEqual([{ field, code }]);
    }
    expect(await countRows(ctx, 'payment_links')).toBe(before);
  });

  it('takes any-case names and type, and null optional properties as absent', async () => {
    const ref = await createLink(
      ctx,
      payByLink(ctx, { CustomFields: [{ KEY: 'n', Type: 'NUMBER', label: 'N', labelEn: null, required: false, maxLength: null }] }),
    );
    expect((await details(ctx, ref)).customFields).toEqual([{ key: 'n', type: 'Number', label: 'N', required: false }]);
  });

  it('update: replaces the list, keeps it when left out, takes it sent back as read, clears with null or []', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const update = (body: Record<string, unknown>) => call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, ...body });
    expect((await update({ customFields: FIELDS })).status).toBe(200);
    expect((await details(ctx, ref)).customFields).toEqual(READ);
    expect((await update({ description: 'Kept' })).status).toBe(200);
    expect((await details(ctx, ref)).customFields).toEqual(READ);

    const { submissions: _submissions, ...asRead } = await details(ctx, ref);
    expect((await call(ctx, 'POST', UPDATE, { ...asRead, description: 'Sent back' })).status).toBe(200);
    expect((await details(ctx, ref)).customFields).toEqual(READ);

    expect((await update({ customFields: [READ[1]] })).status).toBe(200);
    expect((await details(ctx, ref)).customFields).toEqual([READ[1]]);
    expect((await update({ customFields: null })).status).toBe(200);
    expect(await details(ctx, ref)).not.toHaveProperty('customFields');
    expect((await update({ customFields: FIELDS })).status).toBe(200);
    expect((await update({ customFields: [] })).status).toBe(200);
    expect(await details(ctx, ref)).not.toHaveProperty('customFields');
  });

  it('update refuses bad definitions together with the other fields’ errors, and changes nothing', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { customFields: FIELDS }));
    const before = await storedRow(ctx, ref);
    const r = await call(ctx, 'POST', UPDATE, {
      paymentLinkReference: ref,
      returnUrl: 'nope',
      customFields: [FIELDS[0], { ...FIELDS[1], key: 'Size' }, { ...FIELDS[2], options: ['1'] }, FIELDS[0]],
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining([
        { field: 'returnUrl', code: 'INVALID_RETURN_URL' },
        { field: 'customFields', code: 'COUNT' },
        { field: 'customFields[1].key', code: 'DUPLICATE' },
        { field: 'customFields[2].options', code: 'NOT_ALLOWED' },
      ]),
    );
    expect(await storedRow(ctx, ref)).toEqual(before);
  });
});

describe('the shopper’s answers to a link’s custom fields', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('asks on the payment page, labelled in the page’s language', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', customFields: FIELDS }));
    const s = new Shopper(ctx);
    const en = await s.get(`/pay/${ref}`);
    expect(en.body).toContain('<legend>Additional information</legend>');
    expect(en.body).toMatch(
      /<label for="custom-size">Size<span class="tag">\(required\)<\/span><\/label>\s*<select id="custom-size" name="custom-size" required/,
    );
    expect(en.body).toContain('<option value="M">M</option>');
    expect(en.body).toMatch(/<label for="custom-plate">Bílnúmer<span class="tag">\(optional\)<\/span><\/label>/);
    expect(en.body).toMatch(/<input type="text" id="custom-plate" name="custom-plate" autocomplete="off" maxlength="8"/i);
    expect(en.body).toMatch(/<input type="text" id="custom-guests" name="custom-guests" inputmode="numeric"/i);
    const is = await s.get(`/pay/${ref}?lang=is`);
    expect(is.body).toContain('<legend>Viðbótarupplýsingar</legend>');
    expect(is.body).toContain('Fjöldi gesta<span class="tag">(valfrjálst)</span>');
    expect(is.body).toContain('<option value>Veldu…</option>');
    // A link without them shows none.
    const plain = await createLink(ctx, payByLink(ctx));
    expect((await s.get(`/pay/${plain}`)).body).not.toContain('custom-');
  });

  it('refuses a missing, too long, non-number or unknown answer beside its input in the shopper’s language, keeps the others, and pays nothing', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', customFields: FIELDS }));
    const s = new Shopper(ctx);
    const missing = await s.payWith(`/pay/${ref}`, CARD, { 'custom-plate': 'AB123', 'custom-guests': '4' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('<p class="error" id="custom-size-error">Please choose one of the options.</p>');
    expect(missing.body).toMatch(/id="custom-size"[^>]*aria-invalid="true" aria-describedby="custom-size-error"/);
    expect(missing.body).toMatch(/id="custom-plate"[^>]*value="AB123"/);
    expect(missing.body).toMatch(/id="custom-guests"[^>]*value="4"/);
    expect(missing.body).toContain('Please correct the marked fields.');

    const bad = await s.payWith(`/pay/${ref}`, CARD, { 'custom-size': 'XL', 'custom-plate': 'ABCDEFGHI', 'custom-guests': '4.5', lang: 'is' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<p class="error" id="custom-size-error">Veldu einn af valkostunum.</p>');
    expect(bad.body).toContain('<p class="error" id="custom-plate-error">Notaðu mest 8 stafi.</p>');
    expect(bad.body).toContain('<p class="error" id="custom-guests-error">Sláðu inn heila tölu, t.d. 12.</p>');
    const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM payments WHERE payment_link_reference = $1', [ref]);
    expect(rows).toHaveLength(0);
  });

  it('keeps the answers with the submission and the payment, a Number in its plain form, and sends the same webhook bodies', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { customFields: FIELDS }));
    const s = new Shopper(ctx);
    const paid = await s.payWith(`/pay/${ref}`, CARD, { 'custom-size': 'M', 'custom-plate': '  AB 123 ', 'custom-guests': '007' });
    expect(paid.statusCode, paid.body.slice(0, 400)).toBe(303);
    // An optional field left empty is left out; a refused card keeps the answers on its submission too.
    const refused = await s.payWith(`/pay/${ref}`, '4000000000000002', { 'custom-size': 'S' });
    expect(refused.statusCode).toBe(200);
    const link = await details(ctx, ref);
    const answered = [
      { key: 'size', value: 'M' },
      { key: 'plate', value: 'AB 123' },
      { key: 'guests', value: '7' },
    ];
    expect(link.submissions).toEqual([
      expect.objectContaining({ completed: true, customFieldAnswers: answered, answers: [] }),
      expect.objectContaining({ completed: false, customFieldAnswers: [{ key: 'size', value: 'S' }] }),
    ]);
    expect(await paymentAnswers(ctx, ref)).toEqual(expect.arrayContaining([answered, [{ key: 'size', value: 'S' }]]));

    const payfac = new URL(String(paid.headers.location), 'http://x').searchParams.get('p') as string;
    const plain = await createLink(ctx, payByLink(ctx));
    const plainPaid = await s.payWith(`/pay/${plain}`, CARD);
    const plainPayfac = new URL(String(plainPaid.headers.location), 'http://x').searchParams.get('p') as string;
    const shape = (events: { event_type: string; message: Record<string, unknown> }[]) =>
      events.map((e) => [e.event_type, Object.keys(e.message)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const withAnswers = await eventsOf(ctx, payfac);
    expect(withAnswers.length).toBeGreaterThan(0);
    expect(shape(withAnswers)).toEqual(shape(await eventsOf(ctx, plainPayfac)));
    expect(JSON.stringify(withAnswers)).not.toContain('AB 123');
  });

  it('through a 3-D Secure step: the answers given on the payment page are kept', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { customFields: FIELDS }));
    const s = new Shopper(ctx);
    const step = await s.payWith(`/pay/${ref}`, '4000000000003220', { 'custom-size': 'L' });
    expect(step.statusCode).toBe(200);
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
    const done = await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm' });
    expect(done.statusCode).toBe(303);
    expect(await paymentAnswers(ctx, ref)).toEqual([[{ key: 'size', value: 'L' }]]);
  });

  it('decides on the locked link: a required field added after the page was read is asked for, and nothing is paid', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const s = new Shopper(ctx);
    await s.get(`/pay/${ref}`);
    expect((await call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, customFields: [FIELDS[0]] })).status).toBe(200);
    const deps = { db: ctx.tdb.db, clock: ctx.clock, acquirer: simulatorAcquirer, sealer: ctx.sealer, receiptsPerHour: ctx.config.receiptsPerHour };
    const card = { cardNumber: CARD, expiryDate: '12/39', cvc: '123' };
    const from = { address: '192.0.2.1' };
    const shopper = { answers: {}, acceptedTerms: false, customValues: {}, quantities: null };
    expect(await pay(deps, { kind: 'link', reference: ref }, { card, shopper, from })).toMatchObject({
      kind: 'Invalid',
      problems: { custom: { size: 'required' } },
    });
    expect(await paymentAnswers(ctx, ref)).toEqual([]);
    expect((await pay(deps, { kind: 'link', reference: ref }, { card, shopper: { ...shopper, customValues: { size: 'S' } }, from })).kind).toBe('Authorised');
    expect(await paymentAnswers(ctx, ref)).toEqual([[{ key: 'size', value: 'S' }]]);
  });
});
