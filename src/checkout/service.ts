import type { Static } from 'typebox';
import type { Actor } from '../actor.js';
import { recordAudit } from '../audit/service.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { keysetPage, type Keyset } from '../db/keyset.js';
import { notFound } from '../errors.js';
import { isTerminalOf } from '../accounts/service.js';
import { checkoutOutcome } from '../payments/tokens/service.js';
import { newReference } from '../ids.js';
import { idempotentCreate, type IdempotencyDeps } from '../idempotency/service.js';
import { fieldErrors, isRecord, mergeErrors } from '../paymentLinks/rules.js';
import { schemaCheck } from '../validation.js';
import { createCheckoutRuleErrors } from './rules.js';
import { CreateCheckoutBody, sessionExpiry, type SessionStatus } from './schemas.js';
import * as sql from './sql.js';

// Hosted checkout sessions (§Hosted checkout): create, read status. Paying a session is src/payments/service.ts.

type CreateCheckoutRequest = Static<typeof CreateCheckoutBody>;

/** Where a session's payment page opens (§References and URLs). */
export function sessionUrl(publicBaseUrl: string, reference: string): string {
  return `${publicBaseUrl}/checkout/${reference}`;
}

export function sessionStatusOf(row: { completedAt: Date | null; expiresAt: Date }, now: Date): SessionStatus {
  if (row.completedAt !== null) return 'Completed';
  return row.expiresAt.getTime() <= now.getTime() ? 'Expired' : 'New';
}

function quantityOf(q: number | string | undefined): number | null {
  if (q === undefined) return null;
  return typeof q === 'number' ? q : Number(q);
}

/**
 * Every create rule at once (§Errors: all failing fields in one answer): the schema's errors, the rules of
 * §Hosted checkout, and the terminal's owner (§Authentication). Returns the input, normalised
 * (§Clients in the field) and now known to be valid.
 */
async function checkCreateSession(db: Database, merchantId: string, input: unknown, now: Date): Promise<CreateCheckoutRequest> {
  const { value, errors: schemaErrors } = schemaCheck(CreateCheckoutBody, input, { nullMeansAbsent: true });
  const errors = mergeErrors(schemaErrors, createCheckoutRuleErrors(value, now));
  if (isRecord(value) && typeof value.terminalIdentifier === 'string' && /^[A-Za-z0-9]{12}$/.test(value.terminalIdentifier)) {
    if (!(await isTerminalOf(db, value.terminalIdentifier, merchantId))) {
      errors.push({ field: 'terminalIdentifier', code: 'TERMINAL_NOT_FOUND', message: "is not a terminal of the API key's merchant" });
    }
  }
  if (errors.length > 0) throw fieldErrors(errors);
  return value as CreateCheckoutRequest;
}

/** The operation name under which session creates' Idempotency-Keys are kept (§Idempotent creates). */
export const CREATE_SESSION_OPERATION = 'hostedcheckout.create';

/**
 * Create a hosted checkout session (§Hosted checkout), for every caller: the input is checked as a
 * whole here (checkCreateSession); a failing one throws §Errors's answer, naming every failing field.
 */
export async function createSession(
  deps: IdempotencyDeps & { publicBaseUrl: string; actor: Actor },
  merchantId: string,
  input: unknown,
  idempotencyKey: string | undefined,
): Promise<{ checkoutReference: string; url: string }> {
  const { clock } = deps;
  const now = clock.now();
  const body = await checkCreateSession(deps.db, merchantId, input, now);

  const expiresAt = sessionExpiry(body.expiresAt, now);
  const manual = body.isManualCapture ?? false;
  const shopperEmail = body.shopperContact === undefined ? null : typeof body.shopperContact === 'string' ? body.shopperContact : body.shopperContact.email;

  const { body: created } = await idempotentCreate(
    deps,
    { ownerId: merchantId, key: idempotencyKey, operation: CREATE_SESSION_OPERATION, body },
    async (tx) => {
      const reference = newReference('cs');
      await sql.insertSession(tx, {
        reference,
        merchantId,
        terminalIdentifier: body.terminalIdentifier,
        amount: body.amount,
        currency: body.currency,
        returnUrl: body.returnUrl,
        merchantReference: body.reference,
        culture: body.culture ?? 'is',
        isManualCapture: manual,
        // §Hosted checkout: manual capture wins and the delay is ignored.
        captureHoursDelay: manual ? null : (body.captureHoursDelay ?? null),
        isPreAuth: body.isPreAuth ?? false,
        expiresAt,
        merchantShopperReference: body.merchantShopperReference ?? null,
        items: (body.items ?? []).map((i) => ({ name: i.name, amount: i.amount, quantity: quantityOf(i.quantity), unitPrice: i.unitPrice ?? null })),
        themeKey: body.themeKey ?? null,
        shopperEmail,
        recurringProcessingModel: body.recurringProcessingModel ?? null,
        abandonUrl: body.abandonUrl ?? null,
        createdAt: now,
      });
      await recordAudit(tx, deps, {
        merchantId,
        action: 'checkout.create',
        target: reference,
        details: { amount: body.amount, currency: body.currency, reference: body.reference },
      });
      return { checkoutReference: reference, url: sessionUrl(deps.publicBaseUrl, reference) };
    },
  );
  return created;
}

export async function sessionStatus(
  deps: { db: Database; clock: Clock },
  merchantId: string,
  reference: string,
): Promise<{ status: SessionStatus; payfacReference: string | null }> {
  const row = await sql.sessionStatusRow(deps.db.pool, merchantId, reference);
  if (row) return { status: sessionStatusOf(row, deps.clock.now()), payfacReference: row.payfacReference };
  // Every checkoutReference the events carry answers here: a link payment's checkout and a saved-card
  // charge's too. Another merchant's reference is reported as not found.
  const other = await checkoutOutcome(deps, merchantId, reference);
  if (!other) throw notFound('checkout session');
  return other;
}

// ---------------------------------------------------------------- the portal's pages (§The portal)

export interface SessionSummary {
  checkoutReference: string;
  merchantReference: string;
  amount: number;
  currency: string;
  status: SessionStatus;
  payfacReference: string | null;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * The merchant's sessions, newest first, a page at a time by keyset (newer and older from a cursor):
 * sessions are made by every checkout of a shop, so a merchant has many, and no count is kept.
 */
export async function listSessions(
  deps: { db: Database; clock: Clock },
  merchantId: string,
  keyset: Keyset | null,
  pageSize: number,
): Promise<{ sessions: SessionSummary[]; older: string | null; newer: string | null }> {
  const now = deps.clock.now();
  const rows = await sql.listSessions(deps.db.pool, merchantId, keyset, pageSize + 1);
  const page = keysetPage(rows, pageSize, keyset);
  return {
    sessions: page.rows.map((r) => ({
      checkoutReference: r.reference,
      merchantReference: r.merchantReference,
      amount: r.amount,
      currency: r.currency,
      status: sessionStatusOf(r, now),
      payfacReference: r.payfacReference,
      expiresAt: r.expiresAt,
      createdAt: r.createdAt,
    })),
    older: page.older,
    newer: page.newer,
  };
}

export type SessionDetails = Omit<sql.SessionRow, 'merchantId' | 'merchantName'> & { status: SessionStatus };

/** One of the merchant's sessions with every field and its status now; another merchant's is not found (§Authentication). */
export async function getSession(deps: { db: Database; clock: Clock }, merchantId: string, reference: string): Promise<SessionDetails> {
  const row = await sql.findMerchantSession(deps.db.pool, merchantId, reference);
  if (!row) throw notFound('checkout session');
  const { merchantId: _m, ...rest } = row;
  return { ...rest, status: sessionStatusOf(row, deps.clock.now()) };
}
