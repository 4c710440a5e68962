import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import { auditPage, recordAudit } from '../../src/audit/service.js';
import { call, type TestContext, createTestContext, asOperator } from '../helpers/app.js';
import { type PortalBrowser, portalUser } from './helpers.js';

// The portal's list table (src/portal/views/table.tsx): the message that stands in for an empty
// list, and the keyset pager under it, walked page by page from the newest to the oldest and back
// again, over a list whose rows share their creation time (the cursor's reference breaks the tie).

/** The webhook URLs of a list page, in the order shown. */
const urlsOf = (html: string): string[] => [...html.matchAll(/class="mono">(https:\/\/walk\.example\/\d+)<\/a>/g)].map((m) => m[1] ?? '');

/** The pager's link of the given rel, as a path to get (its &amp; undone), or null. */
function linkOf(html: string, rel: 'next' | 'prev'): string | null {
  const href = new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(html)?.[1];
  return href ? href.replace(/&amp;/g, '&') : null;
}

describe('the portal list table', () => {
  let ctx: TestContext;
  let browser: PortalBrowser;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    browser = (await portalUser(ctx, 'owner')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows its empty message, and neither a table nor a pager, when there is nothing to list', async () => {
    const res = await browser.get('/portal/webhooks');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<p class="panel empty">');
    expect(res.body).not.toContain('<table');
    expect(res.body).not.toContain('class="pager"');
    // A cursor past the end is an empty page with the way back to the newest.
    const past = await browser.get('/portal/webhooks?before=2000-01-01T00:00:00.000000Z_wh_x');
    expect(past.body).toContain('<p class="panel empty">');
    expect(past.body).not.toContain('<table');
  });

  it('walks 45 webhooks twenty at a time, older to the end and newer back, without a gap or a repeat', async () => {
    // 45 webhooks, three to each instant: rows that tie on their time are told apart by their id.
    for (let i = 0; i < 45; i++) {
      if (i % 3 === 0) ctx.clock.advance(1000);
      const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `https://walk.example/${String(i).padStart(2, '0')}` });
      expect(r.status).toBe(200);
    }
    const first = await browser.get('/portal/webhooks');
    // The header row: a column header each, with its scope.
    expect(first.body).toMatch(/<thead><tr>(<th scope="col">[^<]+<\/th>){4}<\/tr><\/thead>/);
    expect(first.body).toContain('<div class="table-wrap" role="region" aria-label=');
    expect(linkOf(first.body, 'prev')).toBeNull();

    const pages: string[][] = [];
    let url: string | null = '/portal/webhooks';
    const forward: string[] = [];
    while (url !== null) {
      forward.push(url);
      const res = await browser.get(url);
      expect(res.statusCode).toBe(200);
      pages.push(urlsOf(res.body));
      url = linkOf(res.body, 'next');
      if (pages.length > 3) throw new Error('the pager does not end');
    }
    expect(pages.map((p) => p.length)).toEqual([20, 20, 5]);
    const all = pages.flat();
    // Each once, newest instant first (within an instant the order is the ids').
    expect([...all].sort()).toEqual(Array.from({ length: 45 }, (_, i) => `https://walk.example/${String(i).padStart(2, '0')}`));
    const instants = all.map((u) => Math.floor(Number(u.slice(-2)) / 3));
    expect(instants).toEqual([...instants].sort((a, b) => b - a));

    // Back from the last page by "newer": the same pages, in reverse.
    const back: string[][] = [];
    let res = await browser.get(forward.at(-1) ?? '');
    expect(res.body).toContain('>Newest</a>');
    for (;;) {
      back.unshift(urlsOf(res.body));
      const prev = linkOf(res.body, 'prev');
      if (prev === null) break;
      res = await browser.get(prev);
      if (back.length > 3) throw new Error('the pager does not end');
    }
    expect(back).toEqual(pages);
  });

  it('pages the audit log the same way, in both directions, by the order entries were written', async () => {
    const m = await createMerchant(ctx.tdb.db, 'Walked shop');
    const empty = await auditPage(ctx.tdb.db, m.merchantId, {}, 10);
    expect(empty).toEqual({ entries: [], older: null, newer: null });
    for (let i = 0; i < 45; i++) {
      await recordAudit(ctx.tdb.db.pool, asOperator(ctx), { merchantId: m.merchantId, action: 'link.create', target: `t${i}` });
    }
    const pages: string[][] = [];
    let page = await auditPage(ctx.tdb.db, m.merchantId, {}, 10);
    expect(page.newer).toBeNull();
    pages.push(page.entries.map((e) => e.target ?? ''));
    while (page.older !== null) {
      page = await auditPage(ctx.tdb.db, m.merchantId, { before: page.older }, 10);
      pages.push(page.entries.map((e) => e.target ?? ''));
    }
    expect(pages.flat()).toEqual(Array.from({ length: 45 }, (_, i) => `t${44 - i}`));
    const back: string[][] = [page.entries.map((e) => e.target ?? '')];
    while (page.newer !== null) {
      page = await auditPage(ctx.tdb.db, m.merchantId, { after: page.newer }, 10);
      back.unshift(page.entries.map((e) => e.target ?? ''));
    }
    expect(back).toEqual(pages);
  });
});
