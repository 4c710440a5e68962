import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import {
  AccountError,
  allowedOrigins,
  createKey,
  createMerchant,
  createPartner,
  listKeys,
  listTerminals,
  type CreatedMerchant,
} from '../../src/accounts/service.js';
import { adminCommands } from '../../src/admin/commands.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The developers' page (§Authentication) through a browser: API keys made with chosen capabilities and
// shown once, listed and revoked (only the merchant's own); terminals with their identifiers; the
// allowed origins, each checked, with refused lines shown beside the field. Every change is audited.

async function count(ctx: TestContext, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(sql, params);
  return rows[0]?.n ?? 0;
}

async function auditOf(ctx: TestContext, action: string, target: string): Promise<{ details: Record<string, unknown> }[]> {
  const { rows } = await ctx.tdb.db.pool.query<{ details: Record<string, unknown> }>('SELECT details FROM audit_log WHERE action = $1 AND target = $2', [
    action,
    target,
  ]);
  return rows;
}

function errorsBeside(html: string, id: string): string {
  const m = new RegExp(`<(p|ul) class="error" id="${id}-error">([\\s\\S]*?)</(p|ul)>`).exec(html);
  // A refused origin is shown in <code> before its message.
  return m ? textOf(m[2] ?? '').replace(/ :/g, ':') : '';
}

function copyValue(html: string, id: string): string {
  const m = new RegExp(`id="${id}"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*id="${id}"`).exec(html);
  return m?.[1] ?? m?.[2] ?? '';
}

const session = (terminalIdentifier: string) => ({
  amount: 12345,
  currency: 'EUR',
  returnUrl: 'https://shop.example/return',
  reference: 'order-1',
  terminalIdentifier,
  culture: 'en',
});

describe('portal developers', () => {
  let ctx: TestContext;
  let other: CreatedMerchant;
  let owner: PortalBrowser;
  let developer: PortalBrowser;
  let staff: PortalBrowser;
  const merchantId = () => ctx.merchant.merchantId;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    owner = (await portalUser(ctx, 'owner')).browser;
    developer = (await portalUser(ctx, 'developer')).browser;
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows the keys by display form and last use, the terminals to copy, and the origins', async () => {
    // The usage recorder writes last use about once a minute; this is what it writes.
    await ctx.tdb.db.pool.query('UPDATE api_keys SET last_used_at = $2 WHERE merchant_id = $1', [merchantId(), new Date('2026-03-04T05:06:00Z')]);
    const res = await developer.get('/portal/developers');
    expect(res.statusCode).toBe(200);
    const [key] = await listKeys(ctx.tdb.db, { merchantId: merchantId() });
    expect(res.body).toContain(key?.display ?? 'no display');
    expect(res.body).not.toContain(ctx.merchant.apiKey);
    expect(res.body).toContain('datetime="2026-03-04T05:06:00.000Z"');
    expect(textOf(res.body)).toContain('PaymentLinks, TokenizeLinks, HostedCheckout, Webhooks');
    expect(copyValue(res.body, `terminal-${ctx.merchant.terminalIdentifier}`)).toBe(ctx.merchant.terminalIdentifier);
    expect(ctx.merchant.terminalIdentifier).toHaveLength(12);
    expect(res.body).toContain(`data-copy="terminal-${ctx.merchant.terminalIdentifier}"`);
    // Another merchant's key and terminal are not shown.
    expect(res.body).not.toContain(other.terminalIdentifier);
    expect(res.body).toContain('name="allowedOrigins"');
  });

  it('creates a key with the chosen capabilities, shows it once, and the key works with those only', async () => {
    const b = owner;
    await b.get('/portal/developers');
    const before = (await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length;
    const res = await b.post('/portal/developers/keys', { capabilities: ['Webhooks'] });
    expect(res.statusCode).toBe(200);
    expect(textOf(res.body)).toContain('Shown only now');
    const apiKey = copyValue(res.body, 'new-api-key');
    expect(apiKey.length).toBeGreaterThan(30);
    expect(res.body).toContain('data-copy="new-api-key"');
    const keys = await listKeys(ctx.tdb.db, { merchantId: merchantId() });
    expect(keys).toHaveLength(before + 1);
    const made = keys.at(-1);
    expect(made?.capabilities).toEqual(['Webhooks']);
    expect((await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey })).status).toBe(200);
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey })).status).toBe(403);
    const entries = await auditOf(ctx, 'key.create', made?.keyId ?? '');
    expect(entries).toHaveLength(1);
    expect(entries[0]?.details).toEqual({ capabilities: ['Webhooks'] });
    // Listed by its display form only.
    const page = await b.get('/portal/developers');
    expect(page.body).toContain(made?.display ?? 'no display');
    expect(page.body).not.toContain(apiKey);
  });

  it('a key without a capability, or with an unknown one, is refused beside the capabilities and none is made', async () => {
    const b = owner;
    await b.get('/portal/developers');
    const before = (await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length;
    const none = await b.post('/portal/developers/keys', {});
    expect(none.statusCode).toBe(400);
    expect(errorsBeside(none.body, 'f-capabilities')).toBe('choose at least one capability');
    const unknown = await b.post('/portal/developers/keys', { capabilities: ['PaymentLinks', 'Everything'] });
    expect(unknown.statusCode).toBe(400);
    expect(errorsBeside(unknown.body, 'f-capabilities')).toContain('must be one of PaymentLinks');
    expect(unknown.body).toMatch(/value="PaymentLinks" checked/);
    expect((await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length).toBe(before);
    expect(await count(ctx, "SELECT count(*)::int AS n FROM audit_log WHERE action = 'key.create' AND details->'capabilities' @> '[\"Everything\"]'")).toBe(0);
  });

  it('a user may give a key only what their own role may do: the page offers no more, and a forged post is refused beside the boxes', async () => {
    // A developer may not make links or move money in the portal, so not through a key either.
    const offered = (html: string) => [...html.matchAll(/name="capabilities" value="(\w+)"/g)].map((m) => m[1]);
    const page = await developer.get('/portal/developers');
    expect(offered(page.body)).toEqual(['Webhooks']);
    expect(textOf(page.body)).toContain('A key can do only what your role may do in the portal');
    expect(offered((await owner.get('/portal/developers')).body)).toEqual(['PaymentLinks', 'TokenizeLinks', 'HostedCheckout', 'Webhooks']);
    await developer.get('/portal/developers');
    const before = (await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length;
    const forged = await developer.post('/portal/developers/keys', { capabilities: ['HostedCheckout', 'PaymentLinks', 'Webhooks'] });
    expect(forged.statusCode).toBe(400);
    const beside = errorsBeside(forged.body, 'f-capabilities');
    expect(beside).toContain('your role may not give a key HostedCheckout; it may give Webhooks');
    expect(beside).toContain('your role may not give a key PaymentLinks');
    expect(beside).not.toContain('key Webhooks');
    expect((await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length).toBe(before);
    for (const capabilities of [['TokenizeLinks'], ['HostedCheckout']]) {
      expect((await developer.post('/portal/developers/keys', { capabilities })).statusCode).toBe(400);
    }
    expect((await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length).toBe(before);
    // What the role allows is made.
    const ok = await developer.post('/portal/developers/keys', { capabilities: ['Webhooks'] });
    expect(ok.statusCode).toBe(200);
    expect((await listKeys(ctx.tdb.db, { merchantId: merchantId() })).at(-1)?.capabilities).toEqual(['Webhooks']);
    // The same refusal in Icelandic.
    await developer.post('/portal/account/language', { language: 'is' });
    try {
      await developer.get('/portal/developers');
      const is = await developer.post('/portal/developers/keys', { capabilities: ['PaymentLinks'] });
      expect(is.statusCode).toBe(400);
      expect(errorsBeside(is.body, 'f-capabilities')).toBe('Hlutverk þitt má ekki gefa lykli þessa heimild.');
      expect(textOf(is.body)).toContain('Lykill getur aðeins gert það sem hlutverk þitt má gera');
    } finally {
      await developer.post('/portal/account/language', { language: 'en' });
    }
  });

  it('the operator’s command makes keys under the same rule: the same refusal, said on one line', async () => {
    const context = { db: ctx.tdb.db, clock: ctx.clock, publicBaseUrl: 'http://paylinks.test' };
    const before = (await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length;
    await expect(adminCommands['key.create'](context, { merchantId: merchantId(), capabilities: ['PaymentLinks', 'Everything'] })).rejects.toThrow(
      new AccountError('capabilities[1] must be one of PaymentLinks, TokenizeLinks, HostedCheckout, Webhooks'),
    );
    await expect(adminCommands['key.create'](context, { merchantId: merchantId(), capabilities: [] })).rejects.toThrow(
      new AccountError('capabilities choose at least one capability'),
    );
    expect((await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length).toBe(before);
    const made = await adminCommands['key.create'](context, { merchantId: merchantId(), capabilities: ['Webhooks', 'Webhooks'] });
    expect(made.capabilities).toEqual(['Webhooks']);
  });

  it('revokes a key after a confirmation page that works without a script; the key stops working', async () => {
    const b = developer;
    const key = await createKey(asOperator(ctx), { merchantId: merchantId() }, ['PaymentLinks']);
    const confirm = await b.get(`/portal/developers/keys/${key.keyId}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toMatch(new RegExp(`<form method="post" action="/portal/developers/keys/${key.keyId}/revoke" data-confirm="[^"]+"`));
    const res = await b.post(`/portal/developers/keys/${key.keyId}/revoke`, {});
    expect(res.statusCode).toBe(303);
    expect(textOf((await b.follow(res)).body)).toContain('The key is revoked.');
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: key.apiKey })).status).toBe(401);
    expect(await auditOf(ctx, 'key.revoke', key.keyId)).toHaveLength(1);
    // Its confirmation page now says so, and offers nothing to press.
    const again = await b.get(`/portal/developers/keys/${key.keyId}/revoke`);
    expect(textOf(again.body)).toContain('This key is revoked already.');
    expect(again.body).not.toContain(`action="/portal/developers/keys/${key.keyId}/revoke"`);
  });

  it("another merchant's key and a partner's key are not found, and nothing is revoked", async () => {
    const b = owner;
    await b.get('/portal/developers');
    const partner = await createPartner(ctx.tdb.db, 'Partner');
    const [theirs] = await listKeys(ctx.tdb.db, { merchantId: other.merchantId });
    const [partners] = await listKeys(ctx.tdb.db, { partnerId: partner.partnerId });
    for (const keyId of [theirs?.keyId ?? '', partners?.keyId ?? '', 'key_nothing']) {
      expect((await b.get(`/portal/developers/keys/${keyId}/revoke`)).statusCode, keyId).toBe(404);
      expect((await b.post(`/portal/developers/keys/${keyId}/revoke`, {})).statusCode, keyId).toBe(404);
    }
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: other.apiKey })).status).toBe(200);
    expect((await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: partner.apiKey })).status).toBe(200);
    expect(
      await count(ctx, "SELECT count(*)::int AS n FROM audit_log WHERE action = 'key.revoke' AND target = ANY($1)", [[theirs?.keyId, partners?.keyId]]),
    ).toBe(0);
  });

  it('adds a terminal with a 12-character identifier that the API takes', async () => {
    const b = developer;
    await b.get('/portal/developers');
    const before = await listTerminals(ctx.tdb.db, merchantId());
    const res = await b.post('/portal/developers/terminals', {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/developers?done=terminalAdded#terminals');
    const after = await listTerminals(ctx.tdb.db, merchantId());
    expect(after).toHaveLength(before.length + 1);
    const added = after.find((t) => !before.some((x) => x.terminalIdentifier === t.terminalIdentifier))?.terminalIdentifier ?? '';
    expect(added).toMatch(/^[A-Za-z0-9]{12}$/);
    const page = await b.follow(res);
    expect(textOf(page.body)).toContain('A terminal was added.');
    expect(copyValue(page.body, `terminal-${added}`)).toBe(added);
    expect((await call(ctx, 'POST', '/api/v1/hostedcheckout', session(added))).status).toBe(200);
    expect(await auditOf(ctx, 'terminal.add', added)).toHaveLength(1);
  });

  it('saves the allowed origins one per line in their canonical form, and the API keeps to them', async () => {
    const b = owner;
    await b.get('/portal/developers');
    const res = await b.post('/portal/developers/origins', {
      allowedOrigins: 'https://Shop.Example/\r\n\r\n  http://localhost:3000  \nhttps://shop.example:443\n',
    });
    expect(res.statusCode).toBe(303);
    expect(await allowedOrigins(ctx.tdb.db, merchantId())).toEqual(['https://shop.example', 'http://localhost:3000']);
    const page = await b.follow(res);
    expect(textOf(page.body)).toContain('The allowed origins are saved.');
    expect(page.body).toContain('https://shop.example\nhttp://localhost:3000</textarea>');
    const t = ctx.merchant.terminalIdentifier;
    expect((await call(ctx, 'POST', '/api/v1/hostedcheckout', session(t), { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await call(ctx, 'POST', '/api/v1/hostedcheckout', session(t), { headers: { origin: 'https://shop.example' } })).status).toBe(200);
    const entries = await auditOf(ctx, 'origins.update', merchantId());
    expect(entries.at(-1)?.details).toEqual({ allowedOrigins: ['https://shop.example', 'http://localhost:3000'] });

    // Emptied: any origin again.
    await b.post('/portal/developers/origins', { allowedOrigins: '' });
    expect(await allowedOrigins(ctx.tdb.db, merchantId())).toEqual([]);
  });

  it('refused origins are named beside the field, with status 400, and nothing changes', async () => {
    const b = owner;
    await b.get('/portal/developers');
    await b.post('/portal/developers/origins', { allowedOrigins: 'https://kept.example' });
    const text = 'https://shop.example/checkout\nftp://files.example\nhttps://fine.example\nshop.example';
    const res = await b.post('/portal/developers/origins', { allowedOrigins: text });
    expect(res.statusCode).toBe(400);
    const beside = errorsBeside(res.body, 'f-allowedOrigins');
    for (const line of ['https://shop.example/checkout', 'ftp://files.example', 'shop.example'])
      expect(beside).toContain(`${line}: must be an http or https origin`);
    expect(beside).not.toContain('fine.example');
    expect(res.body).toContain(`${text}</textarea>`);
    expect(res.body).toMatch(/id="f-allowedOrigins"[^>]*aria-invalid="true"/);
    expect(await allowedOrigins(ctx.tdb.db, merchantId())).toEqual(['https://kept.example']);

    const many = Array.from({ length: 51 }, (_, i) => `https://s${i}.example`).join('\n');
    const tooMany = await b.post('/portal/developers/origins', { allowedOrigins: many });
    expect(tooMany.statusCode).toBe(400);
    expect(errorsBeside(tooMany.body, 'f-allowedOrigins')).toContain('at most 50');
    expect(await allowedOrigins(ctx.tdb.db, merchantId())).toEqual(['https://kept.example']);
    await b.post('/portal/developers/origins', { allowedOrigins: '' });
  });

  it('staff may not open the page or change anything (403, nothing written)', async () => {
    const home = await staff.get('/portal');
    expect(home.body).not.toContain('href="/portal/developers"');
    const key = await createKey(asOperator(ctx), { merchantId: merchantId() }, ['PaymentLinks']);
    expect((await staff.get('/portal/developers')).statusCode).toBe(403);
    expect((await staff.get(`/portal/developers/keys/${key.keyId}/revoke`)).statusCode).toBe(403);
    const keys = (await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length;
    const terminals = (await listTerminals(ctx.tdb.db, merchantId())).length;
    expect((await staff.post('/portal/developers/keys', { capabilities: ['Webhooks'] })).statusCode).toBe(403);
    expect((await staff.post(`/portal/developers/keys/${key.keyId}/revoke`, {})).statusCode).toBe(403);
    expect((await staff.post('/portal/developers/terminals', {})).statusCode).toBe(403);
    expect((await staff.post('/portal/developers/origins', { allowedOrigins: 'https://staff.example' })).statusCode).toBe(403);
    expect((await listKeys(ctx.tdb.db, { merchantId: merchantId() })).length).toBe(keys);
    expect((await listTerminals(ctx.tdb.db, merchantId())).length).toBe(terminals);
    expect(await allowedOrigins(ctx.tdb.db, merchantId())).toEqual([]);
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: key.apiKey })).status).toBe(200);
  });

  it('speaks Icelandic to an Icelandic reader, errors included', async () => {
    const b = developer;
    await b.post('/portal/account/language', { language: 'is' });
    try {
      const page = await b.get('/portal/developers');
      expect(page.body).toContain('lang="is"');
      expect(textOf(page.body)).toContain('API-lyklar');
      const res = await b.post('/portal/developers/keys', {});
      expect(res.statusCode).toBe(400);
      expect(errorsBeside(res.body, 'f-capabilities')).toBe('Nauðsynlegt.');
      const origins = await b.post('/portal/developers/origins', { allowedOrigins: 'nope' });
      expect(errorsBeside(origins.body, 'f-allowedOrigins')).toBe('nope: Ekki á réttu formi.');
    } finally {
      await b.post('/portal/account/language', { language: 'en' });
    }
  });
});
