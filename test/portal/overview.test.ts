import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { CARD, paidSession } from '../modifications/helpers.js';
import { refusedPort, register, testWorker } from '../webhooks/helpers.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The portal's overview (§The portal): sales of the last 7 or 30 days per currency with a chart and
// its figures, the newest payments, and the webhooks whose deliveries fail (for those who may read them).

describe('the overview', () => {
  let ctx: TestContext;
  let worker: DeliveryWorker;
  let owner: PortalBrowser;
  let staff: PortalBrowser;
  let newest = '';

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = (await portalUser(ctx, 'owner')).browser;
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await worker?.stop();
    await ctx.close();
  });

  it('a merchant with no payments is shown how to start', async () => {
    const text = textOf((await owner.get('/portal')).body);
    expect(text).toContain('No payments in this period yet.');
    expect(text).toContain('Make a payment link');
    // No webhook yet: nothing can fail, and the overview says so rather than that every webhook delivers.
    expect(text).toContain('There is no webhook yet');
    expect(text).not.toContain('Every webhook is delivering');
    expect(text).not.toContain('An invitation to another merchant is waiting');
  });

  it('shows the sales of the period per currency, with the figures of each day, and the newest payments', async () => {
    ctx.clock.set(new Date('2026-05-01T09:00:00Z'));
    await paidSession(ctx, { reference: 'old-order', amount: 100000 });
    ctx.clock.set(new Date('2026-05-20T09:00:00Z'));
    await paidSession(ctx, { reference: 'order-1', amount: 12345 });
    ctx.clock.set(new Date('2026-05-21T09:00:00Z'));
    await paidSession(ctx, { reference: 'order-2', amount: 5000 });
    await paidSession(ctx, { reference: 'order-3', amount: 700 }, CARD.refused);
    newest = (await paidSession(ctx, { reference: 'order-4', amount: 2500, currency: 'ISK' })).payfacReference;

    const week = await owner.get('/portal');
    expect(week.statusCode).toBe(200);
    const text = textOf(week.body);
    // EUR: 123.45 + 50.00 this week (the 1 May sale is older than 7 days); one refused.
    expect(text).toContain('Sales · EUR');
    expect(text).toMatch(/€173\.45 Sales 2 Payments 1 Refused €0\.00 Refunded/);
    expect(text).toContain('Sales · ISK');
    expect(week.body).toMatch(/<svg class="chart"[^>]*role="img"[^>]*aria-label="Sales in EUR per day, [^"]+: €173\.45 in all\."/);
    // Each day's figure as a table too: the 20th and the 21st, and the days without sales as zero.
    expect(text).toMatch(/20 May 2026 €123\.45/);
    expect(text).toMatch(/21 May 2026 €50\.00/);
    expect(text).toMatch(/19 May 2026 €0\.00/);
    expect(week.body.indexOf(newest)).toBeGreaterThan(0);

    // Later payments of the same day add to its figures as the clock moves on: nothing counted twice or lost.
    ctx.clock.set(new Date('2026-05-21T13:30:00Z'));
    await paidSession(ctx, { reference: 'order-late', amount: 100 });
    ctx.clock.set(new Date('2026-05-21T15:45:00Z'));
    expect(textOf((await owner.get('/portal')).body)).toMatch(/€174\.45 Sales 3 Payments 1 Refused/);
    const month = textOf((await owner.get('/portal?days=30')).body);
    expect(month).toMatch(/€1,174\.45 Sales 4 Payments 1 Refused/);

    // Two payments of one hour, each counted once, also after the clock has moved past the hour.
    ctx.clock.set(new Date('2026-05-21T16:02:00Z'));
    await paidSession(ctx, { reference: 'order-16a', amount: 100 });
    ctx.clock.set(new Date('2026-05-21T16:20:00Z'));
    expect(textOf((await owner.get('/portal')).body)).toMatch(/€175\.45 Sales 4 Payments 1 Refused/);
    ctx.clock.set(new Date('2026-05-21T16:25:00Z'));
    await paidSession(ctx, { reference: 'order-16b', amount: 100 });
    ctx.clock.set(new Date('2026-05-21T16:40:00Z'));
    expect(textOf((await owner.get('/portal')).body)).toMatch(/€176\.45 Sales 5 Payments 1 Refused/);
    ctx.clock.set(new Date('2026-05-21T17:30:00Z'));
    expect(textOf((await owner.get('/portal')).body)).toMatch(/€176\.45 Sales 5 Payments 1 Refused/);
  });

  it('names a webhook whose deliveries fail to those who may read webhooks, not to staff', async () => {
    const wh = await register(ctx, `https://127.0.0.1:${await refusedPort()}/hook`);
    // A webhook with no delivery yet: none fails, and there is one, so every webhook is delivering.
    expect(textOf((await owner.get('/portal')).body)).toContain('Every webhook is delivering');
    await paidSession(ctx, { reference: 'order-5' });
    worker = testWorker(ctx);
    await worker.start();
    await worker.settled();
    const text = textOf((await owner.get('/portal')).body);
    expect(text).toContain('Deliveries of these webhooks failed in the last 7 days');
    // Its events (the payment's Authorisation and Capture) each had one failed attempt.
    expect(text).toMatch(/[1-9]\d* being retried/);
    expect((await owner.get('/portal')).body).toContain(`/portal/webhooks/${wh.webhookId}/deliveries`);
    const staffPage = await staff.get('/portal');
    expect(staffPage.statusCode).toBe(200);
    expect(staffPage.body).not.toContain(wh.webhookId);
    expect(textOf(staffPage.body)).not.toContain('Webhooks');
  });
});
