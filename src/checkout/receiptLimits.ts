import type { Queryable } from '../db/database.js';
import { count, lockedFor, type Counter } from '../throttle/service.js';

// How many receipts a payment link's pages send (docs/mail.md, "How many receipts"). A receipt goes to
// whatever address the shopper typed, so without a limit a link would send mail to anyone, as often as
// someone pays it: an address typed on a link's page gets a receipt only while, within the hour, the
// receipts sent to addresses typed from the same network address, and those of the link in all, are
// under their limits (PAYLINKS_RECEIPTS_PER_HOUR_PER_ADDRESS and _PER_LINK). Past one, the payment is
// made as always and its receipt page shown; only the e-mail is not written. A checkout session's
// shopperContact comes from the merchant's own server, not from the shopper, and is not limited.

export interface ReceiptLimits {
  readonly perAddress: number;
  readonly perLink: number;
}

const HOUR_MS = 3_600_000;

function countersOf(limits: ReceiptLimits, link: string, address: string): Counter[] {
  return [
    { key: `receipt-address:${address}`, limit: { failures: limits.perAddress, windowMs: HOUR_MS } },
    { key: `receipt-link:${link}`, limit: { failures: limits.perLink, windowMs: HOUR_MS } },
  ];
}

/** Whether a receipt of this link, to an address typed from `address`, may be written now; when it may, it is counted. */
export async function takeReceipt(tx: Queryable, now: Date, limits: ReceiptLimits, link: string, address: string): Promise<boolean> {
  if (limits.perAddress === 0 || limits.perLink === 0) return false;
  const counters = countersOf(limits, link, address);
  if ((await lockedFor(tx, now, counters)) > 0) return false;
  await count(tx, now, counters);
  return true;
}
