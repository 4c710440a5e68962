import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { PoolClient } from 'pg';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import { newPayfacReference } from '../../ids.js';
import { enqueueEvent } from '../../webhooks/events.js';
import type { Acquirer, ModificationRequest } from '../acquirer.js';
import * as sql from './sql.js';
import { LoopOwner, NotifiedLoop } from '../../db/notifiedLoop.js';
import type { Sealer } from '../../sealing.js';
import { MODIFICATIONS_CHANNEL } from './sql.js';

// The modification processor (§Modifications and saved cards). Each Received modification is completed in two short
// transactions with the acquirer's answer between them, no transaction open while it is awaited (a
// real acquirer takes 0.2–2 s): the first claims it under a lease (first in line for its payment, so
// the modifications of one payment still complete one after another) and settles what the acquirer
// is asked on the ledger as it stands; the second, while the claim is still its own, writes the
// outcome, the ledger and the Capture/Refund/Adjustment event together. A processor that dies leaves
// its claim to run out (LEASE_MS) and the row Received for the next pass; the acquirer sees the
// modification's own payfacReference, its idempotency key, so a second ask does not move money twice.
// Delayed captures (§Hosted checkout captureHoursDelay) that the injected clock says are due are turned into
// capture modifications first, so they take the same path.
//
// It runs as a NotifiedLoop (src/db/notifiedLoop.ts): woken by the NOTIFY the accepting transaction
// sends, by wake(), and by a fallback poll that also finds delayed captures coming due.

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

interface ModificationProcessorOptions {
  db: Database;
  clock: Clock;
  acquirer: Acquirer;
  /** Opens the webhooks' HMAC keys to sign the Capture, Refund and Adjustment events. */
  sealer: Sealer;
  logger?: Logger;
  /** Fallback poll (real time): delayed captures coming due, a notice that was lost. */
  pollIntervalMs?: number;
  /** Listen for NOTIFY; default on. Tests turn it off to hold modifications in progress. */
  listen?: boolean;
}

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const DUE_BATCH = 50;
/** How long a claim on a modification lasts: far beyond an acquirer's answer; a claim whose processor died is taken again after it. */
const LEASE_MS = 120_000;

export class ModificationProcessor extends LoopOwner {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly acquirer: Acquirer;
  private readonly sealer: Sealer;
  private readonly log: Logger;
  protected readonly loop: NotifiedLoop;
  readonly stats = { completed: 0, scheduledCaptures: 0 };

  constructor(opts: ModificationProcessorOptions) {
    super();
    this.db = opts.db;
    this.clock = opts.clock;
    this.acquirer = opts.acquirer;
    this.sealer = opts.sealer;
    this.log = opts.logger ?? silent;
    this.loop = new NotifiedLoop({
      db: opts.db,
      channel: MODIFICATIONS_CHANNEL,
      pass: () => this.pass(),
      listen: opts.listen ?? true,
      pollIntervalMs: opts.pollIntervalMs ?? 2_000,
      // The row stays Received (its transaction rolled back); the next wake-up tries again.
      onPassError: (err) => this.log.error({ err: err.message }, 'completing a modification failed; retrying on the next poll'),
      log: this.log,
    });
  }

  async start(): Promise<void> {
    await this.loop.start();
  }

  private async pass(): Promise<void> {
    await this.scheduleDueCaptures();
    while (!this.loop.isStopped && (await this.completeOne())) this.stats.completed++;
  }

  /** Delayed captures due by the injected clock become capture modifications of what is still uncaptured. */
  private async scheduleDueCaptures(): Promise<void> {
    for (;;) {
      const created = await withTransaction(this.db, async (tx) => {
        const due = await sql.lockDueCaptures(tx, this.clock.now(), DUE_BATCH);
        for (const p of due) {
          const progress = await sql.inProgress(tx, p.payfacReference);
          const remaining = p.amount - p.capturedAmount - progress.pendingCapture;
          if (remaining > 0) {
            await sql.insertModification(tx, {
              payfacReference: newPayfacReference(),
              merchantId: p.merchantId,
              originalPayfacReference: p.payfacReference,
              kind: 'Capture',
              source: 'Scheduled',
              reference: null,
              amount: remaining,
              currency: p.currency,
              refundReason: null,
              createdAt: this.clock.now(),
            });
            this.stats.scheduledCaptures++;
          }
          await sql.unschedule(tx, p.payfacReference);
        }
        if (due.length > 0) await sql.notifyModifications(tx);
        return due.length;
      });
      if (created < DUE_BATCH) return;
    }
  }

  /**
   * Completes the next modification in line; false when there is none. Claimed and settled in one
   * transaction, the acquirer asked with none open, the outcome recorded in another.
   */
  private async completeOne(): Promise<boolean> {
    const token = randomUUID();
    const asked = await withTransaction(this.db, (tx) => this.settle(tx, token));
    if (asked === null) return false;
    let reason = asked.invalid;
    if (reason === null) {
      const result = await this.acquirer.modify(asked.request);
      if (result.outcome === 'Refused') reason = result.reason;
    }
    await withTransaction(this.db, (tx) => this.record(tx, token, asked, reason));
    return true;
  }

  /** Claims the next modification and settles what the acquirer is asked; null when there is none. */
  private async settle(tx: PoolClient, token: string): Promise<Asked | null> {
    const now = this.clock.now();
    const m = await sql.claimNext(tx, now, new Date(now.getTime() + LEASE_MS), token);
    if (!m) return null;
    const payment = await sql.lockPayment(tx, m.originalPayfacReference, null);
    if (!payment) throw new Error(`payment ${m.originalPayfacReference} of modification ${m.payfacReference} is missing`);

    // What the acquirer is asked to do, settled on the ledger as it stands now: every modification
    // accepted before this one has completed (claimNext takes them in order).
    let request: ModificationRequest['kind'];
    let amount: number;
    let invalid: string | null = null;
    if (m.kind === 'Capture') {
      request = 'Capture';
      amount = m.amount ?? 0;
      if (payment.captureState === 'Cancelled' || amount > payment.amount - payment.capturedAmount) invalid = 'Amount exceeds the uncaptured authorisation';
    } else if (m.kind === 'Refund') {
      request = 'Refund';
      amount = m.amount ?? 0;
      if (amount > payment.capturedAmount - payment.refundedAmount) invalid = 'Amount exceeds the refundable amount';
    } else if (m.kind === 'Adjustment') {
      request = 'Adjust';
      amount = m.amount ?? 0;
      if (payment.captureState !== 'Manual') invalid = 'The authorisation can no longer be adjusted';
      else if (amount < payment.capturedAmount) invalid = 'Amount is below the captured amount';
    } else if (payment.capturedAmount === 0) {
      request = 'Cancel';
      amount = payment.amount;
    } else {
      request = 'Refund';
      amount = payment.capturedAmount - payment.refundedAmount;
      if (amount <= 0) invalid = 'Nothing left to reverse';
    }

    const card = { masked: payment.cardMasked, last4: payment.cardSummary, expiry: payment.cardExpiry, paymentMethod: payment.paymentMethod };
    const base = { reference: m.payfacReference, originalReference: payment.payfacReference, card, amount, currency: payment.currency };
    return {
      m,
      payment,
      amount,
      invalid,
      request: request === 'Adjust' ? { ...base, kind: request, originalAmount: payment.originalAmount } : { ...base, kind: request },
    };
  }

  /**
   * The outcome, the ledger and the event, in one transaction, while the claim is still this one's:
   * a claim that ran out and was taken again is the other processor's to record (it asks the
   * acquirer with the same idempotency key, and gets the same answer).
   */
  private async record(tx: PoolClient, token: string, asked: Asked, reason: string | null): Promise<void> {
    if (!(await sql.holdsClaim(tx, asked.m.payfacReference, token))) {
      this.log.warn({ modification: asked.m.payfacReference }, 'a modification was claimed again while the acquirer answered; the other claim records it');
      return;
    }
    const { m, amount } = asked;
    const request = asked.request.kind;
    // The payment's row, as every writer of its ledger takes it; no other modification of it has completed since the claim.
    const payment = (await sql.lockPayment(tx, m.originalPayfacReference, null)) ?? asked.payment;
    const now = this.clock.now();
    const success = reason === null;

    if (success) {
      if (request === 'Capture') await sql.recordCapture(tx, payment.payfacReference, amount);
      else if (request === 'Refund') await sql.recordRefund(tx, payment.payfacReference, amount);
      else if (request === 'Adjust') await sql.recordAdjustment(tx, payment.payfacReference, amount);
      if (m.kind === 'Reversal') await sql.recordReversal(tx, payment.payfacReference);
    }
    const outcomes = { Capture: 'Captured', Refund: 'Refunded', Cancel: 'Cancelled', Adjust: 'Adjusted' } as const;
    await sql.completeModification(tx, {
      payfacReference: m.payfacReference,
      state: success ? 'Succeeded' : 'Failed',
      amount: amount > 0 ? amount : null,
      outcome: success ? outcomes[request] : null,
      reason,
      completedAt: now,
    });

    await enqueueEvent(
      tx,
      { clock: this.clock, sealer: this.sealer },
      {
        merchantId: payment.merchantId,
        // §Events/§Modifications and saved cards: a capture raises Capture; a refund and a reversal (cancel or refund) raise Refund;
        // an adjustment raises Adjustment, whose amount is the new authorised amount (docs/events.md).
        eventType: m.kind === 'Capture' ? 'Capture' : m.kind === 'Adjustment' ? 'Adjustment' : 'Refund',
        checkoutReference: payment.eventCheckoutReference,
        payfacReference: m.payfacReference,
        merchantReference: payment.merchantReference,
        amount,
        currency: payment.currency,
        reason,
        success,
        additionalData: {
          originalPayfacReference: payment.payfacReference,
          cardNumber: payment.cardMasked,
          cardSummary: payment.cardSummary,
          paymentMethod: payment.paymentMethod,
          // The reason the merchant gave for a refund, in its canonical spelling.
          ...(m.refundReason !== null ? { refundReason: m.refundReason } : {}),
        },
      },
    );
  }
}

/** A claimed modification and what the acquirer is asked for it (`invalid`: why it is refused without asking). */
interface Asked {
  m: sql.ModificationRow;
  payment: NonNullable<Awaited<ReturnType<typeof sql.lockPayment>>>;
  amount: number;
  invalid: string | null;
  request: ModificationRequest;
}
