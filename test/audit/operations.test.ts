import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, type AuditAction } from '../../src/audit/service.js';
import { addTerminal, createKey, revokeKey, updateAllowedOrigins } from '../../src/accounts/service.js';
import { createTheme, deleteTheme, updateTheme } from '../../src/themes/service.js';
import { acceptInvitation, changeRole, declineInvitation, inviteUser, removeUser, reinvite } from '../../src/users/memberships/service.js';
import { signOutEverywhere } from '../../src/users/service.js';
import { setFee } from '../../src/settlements/service.js';
import type { Actor } from '../../src/actor.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { installWriteCounter, tableCounts, writeCount } from '../fuzz/writes.js';
import { paidSession, tokenFromSession } from '../modifications/helpers.js';
import { portalUser } from '../portal/helpers.js';

// Every operation that changes a merchant's state records its audit entry itself, in its own
// transaction (docs/architecture.md, "One shape for every write"):
//   - done once, it leaves exactly one new entry, of its action, with its actor;
//   - done while the audit log refuses every entry (a trigger that raises), it fails and writes
//     nothing at all: no change is committed without its entry, and no entry without its change.
// Every state-changing API route has a case here (a route added later fails the first test until
// it has one); the portal's forms and the operator's commands call the same operations, and the
// operations the API does not offer have cases of their own.

interface Sent {
  status: number;
  body: Record<string, unknown>;
}

interface Case {
  /** The API route (method and pattern), or the operation's own name for one the API does not offer. */
  name: string;
  action: AuditAction;
  /** Makes what the change needs (fresh for each run), and returns the change. */
  prepare(ctx: TestContext): Promise<() => Promise<Sent>>;
}

/** API routes that change state and record nothing, and why. */
const NOT_RECORDED: Record<string, string> = {
  'POST /api/v1/hostedcheckout/status/:checkoutReference': 'a read, which older clients send as a POST',
  'POST /api/v1/webhooks/:webhookId/listen/attempts': "`paylinks listen` reporting its receiver's answer: the delivery's own record",
};

const api =
  (ctx: TestContext, path: string, body: unknown = {}) =>
  async (): Promise<Sent> => {
    const r = await call(ctx, 'POST', path, body);
    return { status: r.status, body: r.body };
  };

/** Runs a service operation as the portal user `actor`; a throw is a failure (500 here). */
const op = (run: () => Promise<unknown>) => async (): Promise<Sent> => {
  try {
    await run();
    return { status: 200, body: {} };
  } catch (err) {
    return { status: 500, body: { error: String(err) } };
  }
};

const LINK = (t: string) => ({
  type: 'PayByLink',
  terminalIdentifier: t,
  amount: 3000,
  currency: 'EUR',
  description: 'audited',
  items: [{ name: 'Mug', quantity: 1, unitPrice: 3000, amountWithoutDiscount: 3000, amount: 3000 }],
});

async function linkOf(ctx: TestContext): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', LINK(ctx.merchant.terminalIdentifier));
  return r.body.paymentLinkReference as string;
}

async function webhookOf(ctx: TestContext): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/audited', eventTypes: ['Authorization'] });
  return r.body.webhookId as string;
}

async function deliveryOf(ctx: TestContext): Promise<string> {
  const webhookId = await webhookOf(ctx);
  await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Authorization', amount: 100, currency: 'EUR' });
  const r = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { webhookId } });
  return ((r.body.data as { deliveryId: string }[])[0] as { deliveryId: string }).deliveryId;
}

function apiCases(): Case[] {
  const refund = (kind: string, body: (ref: string) => Record<string, unknown>, manual: boolean): Case['prepare'] => {
    return async (ctx) => {
      const { payfacReference } = await paidSession(ctx, manual ? { isManualCapture: true } : {});
      return api(ctx, `/api/v1/modification/${kind}`, body(payfacReference));
    };
  };
  return [
    {
      name: 'POST /api/v1/paymentlinks/create',
      action: 'link.create',
      prepare: async (ctx) => api(ctx, '/api/v1/paymentlinks/create', LINK(ctx.merchant.terminalIdentifier)),
    },
    {
      name: 'POST /api/v1/paymentlinks/update',
      action: 'link.update',
      prepare: async (ctx) => api(ctx, '/api/v1/paymentlinks/update', { paymentLinkReference: await linkOf(ctx), description: 'changed' }),
    },
    {
      name: 'POST /api/v1/paymentlinks/disable',
      action: 'link.disable',
      prepare: async (ctx) => api(ctx, '/api/v1/paymentlinks/disable', { paymentLinkReference: await linkOf(ctx) }),
    },
    {
      name: 'POST /api/v1/hostedcheckout',
      action: 'checkout.create',
      prepare: async (ctx) =>
        api(ctx, '/api/v1/hostedcheckout', {
          amount: 1000,
          currency: 'EUR',
          returnUrl: 'https://shop.example/r',
          reference: 'order-1',
          terminalIdentifier: ctx.merchant.terminalIdentifier,
        }),
    },
    {
      name: 'POST /api/v1/modification/capture',
      action: 'payment.capture',
      prepare: refund('capture', (p) => ({ reference: 'c', payfacReference: p, amount: 100, currency: 'EUR' }), true),
    },
    {
      name: 'POST /api/v1/modification/refund',
      action: 'payment.refund',
      prepare: refund('refund', (p) => ({ reference: 'r', payfacReference: p, amount: 100, currency: 'EUR' }), false),
    },
    { name: 'POST /api/v1/modification/reverse', action: 'payment.reverse', prepare: refund('reverse', (p) => ({ reference: 'v', payfacReference: p }), true) },
    {
      name: 'POST /api/v1/modification/adjust',
      action: 'payment.adjust',
      prepare: refund('adjust', (p) => ({ reference: 'a', payfacReference: p, amount: 500, currency: 'EUR' }), true),
    },
    {
      name: 'POST /api/v1/payment',
      action: 'payment.charge',
      prepare: async (ctx) =>
        api(ctx, '/api/v1/payment', {
          terminalIdentifier: ctx.merchant.terminalIdentifier,
          amount: 500,
          currency: 'EUR',
          reference: 'r-1',
          returnUrl: 'https://shop.example/r',
          channel: 'Web',
          tokenDetails: { tokenValue: await tokenFromSession(ctx, 'Subscription'), recurringProcessingModel: 'Subscription' },
        }),
    },
    {
      name: 'POST /api/v1/payment/disable-token',
      action: 'token.disable',
      prepare: async (ctx) => api(ctx, '/api/v1/payment/disable-token', { tokenValue: await tokenFromSession(ctx, 'Subscription') }),
    },
    { name: 'POST /api/v1/webhooks', action: 'webhook.create', prepare: async (ctx) => api(ctx, '/api/v1/webhooks', { url: 'https://hooks.example.com/new' }) },
    {
      name: 'POST /api/v1/webhooks/listeners',
      action: 'webhook.create',
      prepare: async (ctx) => api(ctx, '/api/v1/webhooks/listeners', { eventTypes: ['Refund'] }),
    },
    {
      name: 'POST /api/v1/webhooks/:webhookId/update',
      action: 'webhook.update',
      prepare: async (ctx) => api(ctx, `/api/v1/webhooks/${await webhookOf(ctx)}/update`, { description: 'changed' }),
    },
    {
      name: 'POST /api/v1/webhooks/:webhookId/delete',
      action: 'webhook.delete',
      prepare: async (ctx) => api(ctx, `/api/v1/webhooks/${await webhookOf(ctx)}/delete`),
    },
    {
      name: 'POST /api/v1/webhooks/:webhookId/recover',
      action: 'webhook.recover',
      prepare: async (ctx) => api(ctx, `/api/v1/webhooks/${await webhookOf(ctx)}/recover`, { since: '2026-01-01T00:00:00Z' }),
    },
    {
      name: 'POST /api/v1/webhooks/:webhookId/rotate-secrets',
      action: 'webhook.rotate',
      prepare: async (ctx) => api(ctx, `/api/v1/webhooks/${await webhookOf(ctx)}/rotate-secrets`),
    },
    {
      name: 'POST /api/v1/webhooks/deliveries/:deliveryId/redeliver',
      action: 'delivery.redeliver',
      prepare: async (ctx) => api(ctx, `/api/v1/webhooks/deliveries/${await deliveryOf(ctx)}/redeliver`),
    },
    {
      name: 'POST /api/v1/sandbox/events',
      action: 'sandbox.event',
      prepare: async (ctx) => api(ctx, '/api/v1/sandbox/events', { eventType: 'Authorization', amount: 100, currency: 'EUR' }),
    },
    {
      name: 'POST /api/v1/sandbox/deliveries/advance',
      action: 'sandbox.advance',
      prepare: async (ctx) => {
        // A delivery made a minute ahead of the clock: not due yet, so advancing moves it.
        await deliveryOf(ctx);
        const advance = api(ctx, '/api/v1/sandbox/deliveries/advance');
        return async () => {
          ctx.clock.advance(-60_000);
          try {
            return await advance();
          } finally {
            ctx.clock.advance(60_000);
          }
        };
      },
    },
    {
      name: 'POST /api/v1/sandbox/deliveries/:deliveryId/advance',
      action: 'sandbox.advance',
      prepare: async (ctx) => api(ctx, `/api/v1/sandbox/deliveries/${await deliveryOf(ctx)}/advance`),
    },
    {
      name: 'POST /api/v1/promotioncodes',
      action: 'promotion.create',
      prepare: async (ctx) => api(ctx, '/api/v1/promotioncodes', { code: `AUDIT${Math.random().toString(36).slice(2, 8).toUpperCase()}`, percentOff: 10 }),
    },
    {
      name: 'POST /api/v1/promotioncodes/:promotionCodeId/update',
      action: 'promotion.update',
      prepare: async (ctx) => {
        const made = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: `UPD${Math.random().toString(36).slice(2, 8).toUpperCase()}`, percentOff: 10 });
        const id = (made.body.promotionCode as { promotionCodeId: string }).promotionCodeId;
        return api(ctx, `/api/v1/promotioncodes/${id}/update`, { active: false });
      },
    },
    {
      name: 'POST /api/v1/sandbox/settlements/run',
      action: 'sandbox.settle',
      prepare: async (ctx) => {
        await paidSession(ctx);
        return api(ctx, '/api/v1/sandbox/settlements/run');
      },
    },
  ];
}

/** The operations the API does not offer (the portal's and the operator's), done as a portal user. */
function otherCases(user: () => Actor): Case[] {
  const as = (ctx: TestContext) => ({ db: ctx.tdb.db, clock: ctx.clock, actor: user() });
  const m = (ctx: TestContext) => ctx.merchant.merchantId;
  const theme = { name: 'Plain', accentColor: '#1f5eff', backgroundColor: '#ffffff', buttonShape: 'square' };
  const invited = async (ctx: TestContext) =>
    (await inviteUser(as(ctx), m(ctx), { email: `x${Math.random().toString(36).slice(2)}@shop.example`, role: 'staff', invitedBy: 'usr_x' })).userId;
  const member = async (ctx: TestContext) => (await portalUser(ctx, 'staff')).userId;
  return [
    { name: 'createKey', action: 'key.create', prepare: async (ctx) => op(() => createKey(as(ctx), { merchantId: m(ctx) }, ['Webhooks'])) },
    {
      name: 'revokeKey',
      action: 'key.revoke',
      prepare: async (ctx) => {
        const k = await createKey(as(ctx), { merchantId: m(ctx) }, ['Webhooks']);
        return op(() => revokeKey(as(ctx), k.keyId, { merchantId: m(ctx) }));
      },
    },
    { name: 'addTerminal', action: 'terminal.add', prepare: async (ctx) => op(() => addTerminal(as(ctx), m(ctx))) },
    { name: 'setFee', action: 'fee.update', prepare: async (ctx) => op(() => setFee(as(ctx), m(ctx), { currency: 'EUR', percent: '1.5', fixedAmount: 25 })) },
    {
      name: 'updateAllowedOrigins',
      action: 'origins.update',
      prepare: async (ctx) => op(() => updateAllowedOrigins(as(ctx), m(ctx), ['https://shop.example'])),
    },
    { name: 'createTheme', action: 'theme.create', prepare: async (ctx) => op(() => createTheme(as(ctx), m(ctx), theme)) },
    {
      name: 'updateTheme',
      action: 'theme.update',
      prepare: async (ctx) => {
        const t = await createTheme(as(ctx), m(ctx), theme);
        return op(() => updateTheme(as(ctx), m(ctx), t.themeKey, { ...theme, name: 'Bold', logoChange: 'keep' }));
      },
    },
    {
      name: 'deleteTheme',
      action: 'theme.delete',
      prepare: async (ctx) => {
        const t = await createTheme(as(ctx), m(ctx), theme);
        return op(() => deleteTheme(as(ctx), m(ctx), t.themeKey));
      },
    },
    {
      name: 'inviteUser',
      action: 'user.invite',
      prepare: async (ctx) =>
        op(() => inviteUser(as(ctx), m(ctx), { email: `new${Math.random().toString(36).slice(2)}@shop.example`, role: 'staff', invitedBy: 'usr_x' })),
    },
    {
      name: 'reinvite',
      action: 'user.reinvite',
      prepare: async (ctx) => {
        const id = await invited(ctx);
        return op(() => reinvite(as(ctx), m(ctx), id));
      },
    },
    {
      name: 'acceptInvitation',
      action: 'membership.accept',
      prepare: async (ctx) => {
        const id = await invited(ctx);
        return op(async () => {
          if (!(await acceptInvitation(as(ctx), id, m(ctx)))) throw new Error('no invitation to accept');
        });
      },
    },
    {
      name: 'declineInvitation',
      action: 'membership.decline',
      prepare: async (ctx) => {
        const id = await invited(ctx);
        return op(async () => {
          if (!(await declineInvitation(as(ctx), id, m(ctx)))) throw new Error('no invitation to decline');
        });
      },
    },
    {
      name: 'changeRole',
      action: 'user.role',
      prepare: async (ctx) => {
        const id = await member(ctx);
        return op(() => changeRole(as(ctx), m(ctx), id, 'developer', { userId: 'usr_x' }));
      },
    },
    {
      name: 'removeUser',
      action: 'user.remove',
      prepare: async (ctx) => {
        const id = await member(ctx);
        return op(() => removeUser(as(ctx), m(ctx), id, { userId: 'usr_x' }));
      },
    },
    {
      name: 'signOutEverywhere',
      action: 'user.signOutEverywhere',
      prepare: async (ctx) => {
        const u = await portalUser(ctx, 'staff');
        return op(() => signOutEverywhere(as(ctx), { userId: u.userId, email: u.email, merchantId: m(ctx) }));
      },
    },
  ];
}

describe('every write records its audit entry in its own transaction', () => {
  let ctx: TestContext;
  let owner: { userId: string; email: string };
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'fatal' });
    owner = await portalUser(ctx, 'owner', { email: 'owner@audited.example' });
    await installWriteCounter(ctx.tdb.db);
    await ctx.tdb.db.pool.query(`
      CREATE TABLE audit_refused (on_now boolean NOT NULL);
      INSERT INTO audit_refused VALUES (false);
      CREATE FUNCTION audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT on_now FROM audit_refused) THEN RAISE EXCEPTION 'the audit log refuses this entry'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER audit_refuse BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_refuse();
    `);
  });
  afterAll(async () => {
    await ctx.close();
  });

  const refuseEntries = (on: boolean) => ctx.tdb.db.pool.query('UPDATE audit_refused SET on_now = $1', [on]);
  const entries = async () =>
    (
      await ctx.tdb.db.pool.query<{ action: string; actor_key_id: string | null; actor_user_id: string | null }>(
        'SELECT action, actor_key_id, actor_user_id FROM audit_log WHERE merchant_id = $1 ORDER BY id',
        [ctx.merchant.merchantId],
      )
    ).rows;

  it('every API route that changes state has a case here, or is named as recording nothing', () => {
    const named = new Set(apiCases().map((c) => c.name));
    const changing = ctx.app.routeTable
      .filter((r) => r.auth !== undefined && !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
      .map((r) => `${r.method} ${r.url}`);
    expect(changing.length).toBeGreaterThan(20);
    expect(changing.filter((r) => !named.has(r) && NOT_RECORDED[r] === undefined)).toEqual([]);
    for (const c of [...apiCases(), ...otherCases(() => ({ kind: 'operator' }))]) expect(AUDIT_ACTIONS).toContain(c.action);
  });

  const run = async (c: Case, actor: (e: { actor_key_id: string | null; actor_user_id: string | null }) => boolean) => {
    // With the log refusing entries, the change fails whole: nothing of it is committed.
    const refused = await c.prepare(ctx);
    const before = await writeCount(ctx.tdb.db);
    const tables = await tableCounts(ctx.tdb.db);
    await refuseEntries(true);
    let failed: Sent;
    try {
      failed = await refused();
    } finally {
      await refuseEntries(false);
    }
    expect(failed.status, `${c.name} answered ${JSON.stringify(failed.body)} with its entry refused`).toBeGreaterThanOrEqual(500);
    // The switch's own table is not counted: any write is the change committed without its entry.
    const after = await writeCount(ctx.tdb.db);
    if (after !== before) expect(await tableCounts(ctx.tdb.db), `${c.name} wrote without its entry`).toEqual(tables);
    expect(after).toBe(before);

    // Done again, it goes through and leaves exactly its own entry.
    const change = await c.prepare(ctx);
    const was = (await entries()).length;
    const done = await change();
    expect(done.status, `${c.name}: ${JSON.stringify(done.body)}`).toBe(200);
    const added = (await entries()).slice(was);
    expect(added.map((e) => e.action)).toEqual([c.action]);
    expect(actor(added[0] as (typeof added)[number])).toBe(true);
  };

  it('an update records the fields it changed, by name, and a change of nothing records nothing', async () => {
    const link = await call(ctx, 'POST', '/api/v1/paymentlinks/create', {
      ...LINK(ctx.merchant.terminalIdentifier),
      shopperInfo: [{ field: 'EmailAddress', requirementType: 'Required' }],
      customFields: [{ key: 'size', type: 'Dropdown', label: 'Stærð', labelEn: 'Size', required: true, options: ['S', 'M', 'L'] }],
    });
    const reference = link.body.paymentLinkReference as string;
    const read = (await call(ctx, 'GET', `/api/v1/paymentlinks/${reference}`)).body.paymentLink as Record<string, unknown>;
    const recorded = async (action: string) =>
      (
        await ctx.tdb.db.pool.query<{ details: Record<string, unknown> }>('SELECT details FROM audit_log WHERE action = $1 AND target = $2 ORDER BY id', [
          action,
          reference,
        ])
      ).rows;

    // The link sent back as read, with a new description: only that is a change (the stored shopper
    // infos and custom fields come back from the database with their keys in another order).
    const updated = await call(ctx, 'POST', '/api/v1/paymentlinks/update', {
      paymentLinkReference: reference,
      description: 'changed',
      shopperInfos: read.shopperInfos,
      customFields: read.customFields,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(await recorded('link.update')).toEqual([{ details: { changed: ['description'] } }]);
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: reference, description: 'changed' })).status).toBe(200);
    expect(await recorded('link.update')).toHaveLength(1);

    // Disabling a Disabled link succeeds again, and records nothing again.
    for (let i = 0; i < 2; i++) expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: reference })).status).toBe(200);
    expect(await recorded('link.disable')).toEqual([{ details: {} }]);
  });

  for (const c of apiCases()) {
    it(`${c.name} (${c.action})`, async () => {
      await run(c, (e) => e.actor_key_id !== null && e.actor_user_id === null);
    });
  }
  for (const c of otherCases(() => ({ kind: 'user', userId: owner.userId, email: owner.email }))) {
    it(`${c.name} (${c.action})`, async () => {
      await run(c, (e) => e.actor_user_id === owner.userId);
    });
  }
});
