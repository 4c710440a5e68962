import type { Static } from 'typebox';
import type { Actor } from '../../actor.js';
import { recordAudit, type AuditAction } from '../../audit/service.js';
import type { Database, Queryable } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import { ApiError, notFound, validationError, type FieldError } from '../../errors.js';
import { newPayfacReference } from '../../ids.js';
import { checkInput } from '../../validation.js';
import { expiresAt, hasExpired, type ExpiryDeps } from '../authorisations/service.js';
import { AdjustBody, CaptureBody, RefundBody, ReverseBody } from '../schemas.js';
import * as sql from './sql.js';

// Accepting a capture, refund, reversal or adjustment (§Modifications and saved cards; adjustments: docs/api.md). The payment row is locked, the request is checked
// against its ledger and against the modifications still in progress, and the modification is written
// as Received in the same transaction; the processor completes it afterwards.
//
// Limits: capturable = authorised − captured − captures in progress; refundable = captured − refunded
// − refunds in progress (a capture still in progress is not refundable yet). Going over either is a
// 400 with a field code on `amount` (EXCEEDS_CAPTURABLE, EXCEEDS_REFUNDABLE), not a 409: the request
// names an amount the payment cannot take, and clients (our SDK among them) retry 409s, which would
// never help here. 409 INVALID_STATE is for a payment that takes no modification at all (refused,
// reversed or being reversed, nothing left to reverse, an adjustment of a payment that is not an
// uncaptured manual-capture or pre-authorised one).
//
// An adjustment names the new authorised amount; it may not go below what is captured or being
// captured (400 BELOW_CAPTURED on `amount`). The acquirer may still refuse it: that is its webhook.
//
// An uncaptured authorisation expires (src/payments/authorisations/service.ts): a capture or an
// adjustment asked for at or after its expiry is 409 AUTHORISATION_EXPIRED. One accepted before it is
// completed, however late the acquirer gets to it: the request is what counts. A reversal is still
// taken after the expiry: with nothing captured it records the release the expiry made (the payment
// ends Cancelled, with its webhook, as a merchant's cancel flow expects), and with something captured
// it refunds that, which the expiry does not touch. Refunds are not affected either.

export type ModificationKind = 'Capture' | 'Refund' | 'Reversal' | 'Adjustment';

type ModificationInput =
  | ({ kind: 'Capture' } & Static<typeof CaptureBody>)
  | ({ kind: 'Refund' } & Static<typeof RefundBody>)
  | ({ kind: 'Reversal' } & Static<typeof ReverseBody>)
  | ({ kind: 'Adjustment' } & Static<typeof AdjustBody>);

/** The body of each kind's request, as the API takes it (§Clients in the field: null is absent). */
function checkModification(kind: ModificationKind, input: unknown): ModificationInput {
  const opts = { nullMeansAbsent: true };
  switch (kind) {
    case 'Capture':
      return { kind, ...checkInput(CaptureBody, input, opts) };
    case 'Refund':
      return { kind, ...checkInput(RefundBody, input, opts) };
    case 'Reversal':
      return { kind, ...checkInput(ReverseBody, input, opts) };
    case 'Adjustment':
      return { kind, ...checkInput(AdjustBody, input, opts) };
  }
}

/** What a capture may still take: authorised − captured − captures in progress. */
function capturableOf(payment: sql.LedgerRow, progress: sql.InProgress): number {
  return payment.amount - payment.capturedAmount - progress.pendingCapture;
}

/** What a refund may still take: captured − refunded − refunds in progress. */
function refundableOf(payment: sql.LedgerRow, progress: sql.InProgress): number {
  return payment.capturedAmount - payment.refundedAmount - progress.pendingRefund;
}

/** What a reversal would release (nothing captured, nor being captured) or refund (what is left). */
function reversibleOf(payment: sql.LedgerRow, progress: sql.InProgress): number {
  const willBeCaptured = payment.capturedAmount + progress.pendingCapture;
  return willBeCaptured === 0 ? payment.amount : willBeCaptured - payment.refundedAmount - progress.pendingRefund;
}

/** The lowest authorised amount an adjustment may name: what is captured or being captured (at least 1). */
function leastAdjustmentOf(payment: sql.LedgerRow, progress: sql.InProgress): number {
  return Math.max(1, payment.capturedAmount + progress.pendingCapture);
}

/** What a payment of the merchant can still take, by the rules requestModification applies (0 for each when it takes none). */
export interface Headroom {
  capturable: number;
  refundable: number;
  reversible: number;
  /** The authorisation can be adjusted; `least` is the lowest amount it may be adjusted to. */
  adjustable: { authorised: number; least: number } | null;
  /** When the uncaptured rest of a payment with manual capture or a pre-authorisation expires, and whether it has (null: none waits). */
  expiry: { at: Date; expired: boolean } | null;
}

export async function headroomOf(deps: ExpiryDeps & { db: Database }, merchantId: string, payfacReference: string): Promise<Headroom> {
  const payment = await sql.readLedger(deps.db.pool, payfacReference, merchantId);
  if (!payment) throw notFound('payment');
  const progress = await sql.inProgress(deps.db.pool, payfacReference);
  if (!payment.success || progress.reversed) return { capturable: 0, refundable: 0, reversible: 0, adjustable: null, expiry: null };
  const waiting = payment.captureState === 'Manual';
  const expiry = waiting
    ? { at: expiresAt(deps.config, payment.authorisedAt), expired: hasExpired(deps.config, payment.authorisedAt, deps.clock.now()) }
    : null;
  const open = waiting && !expiry?.expired;
  return {
    capturable: open ? Math.max(0, capturableOf(payment, progress)) : 0,
    refundable: Math.max(0, refundableOf(payment, progress)),
    reversible: Math.max(0, reversibleOf(payment, progress)),
    adjustable: open ? { authorised: payment.amount, least: leastAdjustmentOf(payment, progress) } : null,
    expiry,
  };
}

export type ModificationHistory = sql.ModificationHistoryRow;

/** A payment's modifications, oldest first (its page's timeline). */
export async function modificationsOf(deps: { db: Database }, merchantId: string, payfacReference: string): Promise<ModificationHistory[]> {
  return sql.modificationsOf(deps.db.pool, merchantId, payfacReference);
}

/** The audit log's name of each kind. */
const ACTION: Record<ModificationKind, AuditAction> = {
  Capture: 'payment.capture',
  Refund: 'payment.refund',
  Reversal: 'payment.reverse',
  Adjustment: 'payment.adjust',
};

/**
 * A capture, refund, reversal or adjustment, for every caller (the API, the portal's payment page, the
 * CLI through the API): the body is checked here, its schema first, then against the payment's ledger,
 * and the change and its audit entry are written in one transaction.
 */
export async function requestModification(
  deps: ExpiryDeps & { db: Database; actor: Actor },
  merchantId: string,
  kind: ModificationKind,
  body: unknown,
): Promise<{ status: 'Received'; payfacReference: string }> {
  const input = checkModification(kind, body);
  const payfacReference = newPayfacReference();
  await withTransaction(deps.db, async (tx) => {
    const payment = await sql.lockPayment(tx, input.payfacReference, merchantId);
    if (!payment) throw notFound('payment');
    if (!payment.success) throw new ApiError('INVALID_STATE', 'a refused payment cannot be modified');
    const progress = await sql.inProgress(tx, payment.payfacReference);
    if (progress.reversed) throw new ApiError('INVALID_STATE', 'the payment has been reversed');

    const now = deps.clock.now();
    if ((input.kind === 'Capture' || input.kind === 'Adjustment') && payment.captureState === 'Manual' && hasExpired(deps.config, payment.authorisedAt, now)) {
      const at = expiresAt(deps.config, payment.authorisedAt).toISOString();
      throw new ApiError(
        'AUTHORISATION_EXPIRED',
        `the authorisation expired at ${at}, ${deps.config.authorisationExpiryDays} days after it was made: what was not captured has been released and can no longer be ${input.kind === 'Capture' ? 'captured' : 'adjusted'}`,
      );
    }

    const errors: FieldError[] = [];
    if (input.kind === 'Adjustment') {
      // Manual is the state of a payment with manual capture or a pre-authorisation not yet captured in full.
      if (payment.captureState !== 'Manual') {
        throw new ApiError(
          'INVALID_STATE',
          'only a payment authorised with manual capture or as a pre-authorisation, and not yet captured in full, can be adjusted',
        );
      }
      if (input.currency !== payment.currency) {
        errors.push({ field: 'currency', code: 'CURRENCY_MISMATCH', message: `must be the payment's currency, ${payment.currency}` });
      }
      const least = leastAdjustmentOf(payment, progress);
      if (input.amount < least) {
        errors.push({
          field: 'amount',
          code: 'BELOW_CAPTURED',
          message: `must be at least ${least} (captured ${payment.capturedAmount}, captures in progress ${progress.pendingCapture})`,
        });
      }
      if (errors.length > 0) throw validationError(errors);
    } else if (input.kind !== 'Reversal') {
      if (input.currency !== payment.currency) {
        errors.push({ field: 'currency', code: 'CURRENCY_MISMATCH', message: `must be the payment's currency, ${payment.currency}` });
      }
      // What is left to capture or refund, and what that is made of, for the error's message.
      const limit =
        input.kind === 'Capture'
          ? {
              most: capturableOf(payment, progress),
              code: 'EXCEEDS_CAPTURABLE',
              parts: `authorised ${payment.amount}, captured ${payment.capturedAmount}, captures in progress ${progress.pendingCapture}`,
            }
          : {
              most: refundableOf(payment, progress),
              code: 'EXCEEDS_REFUNDABLE',
              parts: `captured ${payment.capturedAmount}, refunded ${payment.refundedAmount}, refunds in progress ${progress.pendingRefund}`,
            };
      if (input.amount > limit.most) {
        errors.push({ field: 'amount', code: limit.code, message: `must be at most ${limit.most} (${limit.parts})` });
      }
      if (errors.length > 0) throw validationError(errors);
    } else {
      // A reversal releases an authorisation nothing was captured from, or refunds what is left.
      if (reversibleOf(payment, progress) <= 0) throw new ApiError('INVALID_STATE', 'nothing is left to reverse on this payment');
    }

    await sql.insertModification(tx, {
      payfacReference,
      merchantId,
      originalPayfacReference: payment.payfacReference,
      kind: input.kind,
      source: 'Api',
      reference: input.reference,
      amount: input.kind === 'Reversal' ? null : input.amount,
      currency: payment.currency,
      refundReason: input.kind === 'Refund' ? (input.refundReason ?? null) : null,
      createdAt: now,
    });
    await sql.notifyModifications(tx);
    await recordAudit(tx, deps, {
      merchantId,
      action: ACTION[input.kind],
      target: payment.payfacReference,
      details: {
        ...(input.kind === 'Reversal' ? {} : { amount: input.amount, currency: payment.currency }),
        reference: input.reference,
        ...(input.kind === 'Refund' && input.refundReason !== undefined ? { refundReason: input.refundReason } : {}),
        modification: payfacReference,
      },
    });
  });
  return { status: 'Received', payfacReference };
}

export type MoneyMovement = sql.MoneyMovementRow;

/**
 * Every capture and refund booked in [from, until) (from null: from the first), of one merchant or of
 * every one: what the settlements module settles. Its amounts are positive; `type` says which way.
 */
export async function moneyMovements(db: Queryable, o: { merchantId: string | null; from: Date | null; until: Date }): Promise<MoneyMovement[]> {
  return sql.moneyMovements(db, o);
}

/** Captures accepted before `before` and still not completed by the acquirer. */
export async function capturesStillReceived(deps: { db: Database }, before: Date): ReturnType<typeof sql.capturesStillReceived> {
  return sql.capturesStillReceived(deps.db.pool, before);
}
