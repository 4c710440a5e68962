import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, linkDetails, payByLink } from '../checkout/fixtures.js';
import { fieldId } from '../../src/portal/views/components.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The services own their rules: a rule that lives only in an operation of a service (here the link
// description's control characters, §Creating a link, in src/paymentLinks/rules.ts) is answered by the
// API and shown beside its input by the portal, whose code says nothing about it.

const RULE = 'must not contain control characters other than line breaks and tabs';
/** An escape character in the middle of a description, as a paste from a terminal may leave it. */
const WITH_ESCAPE = 'Lopa\u001b[0mpeysa';

function errorBeside(html: string, field: string): string | undefined {
  const id = `${fieldId(field)}-error`;
  const m = new RegExp(`<p class="error" id="${id}">([\\s\\S]*?)</p>`).exec(html);
  if (!m) return undefined;
  expect(html, `an input names ${id}`).toMatch(new RegExp(`aria-describedby="[^"]*${id}`));
  return textOf(m[1] ?? '');
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourcesUnder(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

const linksCount = async (ctx: TestContext): Promise<number> =>
  (await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links WHERE merchant_id = $1', [ctx.merchant.merchantId])).rows[0]?.n ??
  0;

describe('a rule of the link service, in the API and in the portal', () => {
  let ctx: TestContext;
  let staff: PortalBrowser;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('the API refuses a description with a control character, beside every other failing field', async () => {
    const before = await linksCount(ctx);
    const res = await call(ctx, 'POST', '/api/v1/paymentlinks/create', { ...payByLink(ctx), description: WITH_ESCAPE, returnUrl: 'ftp://x' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors).toEqual([
      { field: 'returnUrl', code: 'INVALID_RETURN_URL', message: 'must be an absolute http or https URL of at most 2048 characters' },
      { field: 'description', code: 'FORMAT', message: RULE },
    ]);
    // Line breaks and tabs are text: the portal's description is a multi-line field.
    const ok = await call(ctx, 'POST', '/api/v1/paymentlinks/create', { ...payByLink(ctx), description: 'Line one\r\nLine\ttwo' });
    expect(ok.status).toBe(200);
    expect(await linksCount(ctx)).toBe(before + 1);
  });

  it('the API refuses it in an update too, and a NUL keeps its one error', async () => {
    const reference = await createLink(ctx, payByLink(ctx));
    const res = await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: reference, description: WITH_ESCAPE });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'description', code: 'FORMAT', message: RULE }]);
    const nul = await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: reference, description: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([{ field: 'description', code: 'FORMAT', message: 'must not contain the NUL character (U+0000)' }]);
    expect((await linkDetails(ctx, reference)).description).toBe('Lopapeysa');
  });

  it('the portal shows the rule beside the description input, on create and on edit, and saves nothing', async () => {
    await staff.get('/portal/links/new?type=PayByLink');
    const before = await linksCount(ctx);
    const res = await staff.post('/portal/links', {
      type: 'PayByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      currency: 'ISK',
      culture: 'is',
      description: WITH_ESCAPE,
      'items[0].name': 'Lopapeysa',
      'items[0].quantity': '1',
      'items[0].unitPrice': '4900',
      'items[0].discount': '',
    });
    expect(res.statusCode, textOf(res.body).slice(0, 300)).toBe(400);
    expect(errorBeside(res.body, 'description')).toBe(RULE);
    expect(await linksCount(ctx)).toBe(before);

    const reference = await createLink(ctx, payByLink(ctx));
    await staff.get(`/portal/links/${reference}/edit`);
    const edit = await staff.post(`/portal/links/${reference}/edit`, { description: WITH_ESCAPE, culture: 'is' });
    expect(edit.statusCode).toBe(400);
    expect(errorBeside(edit.body, 'description')).toBe(RULE);
    expect((await linkDetails(ctx, reference)).description).toBe('Lopapeysa');
  });

  it('the portal has no code for the rule, and runs no schema of the API itself', () => {
    const portal = join(import.meta.dirname, '../../src/portal');
    const files = sourcesUnder(portal);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/control character|descriptionError|\\p\{Cc\}/i);
    }
    // Nor does any portal page check a body against a schema: each passes the body to the operation.
    for (const file of files) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(
        /validatorCompiler|bodyErrors|toFieldErrors|schemaCheck|checkInput|\bajv\b|\.compile\(|validation\.js/i,
      );
    }
  });
});
