import type { Queryable } from '../db/database.js';
import { networkOf, reserve, type Counter } from '../throttle/service.js';

// How many receipts a payment link's pages send (docs/mail.md, "How many receipts"). A receipt goes to
// whatever address the shopper typed, so without a limit a link would send mail to anyone, as often as
// someone pays it: an address typed on a link's page gets a receipt only while, within the hour, the
// receipts sent to addresses typed from the same network (an IPv6 address's /64) on the merchant's
// links, and those of the link in all, are under their limits (PAYLINKS_RECEIPTS_PER_HOUR_PER_ADDRESS and _PER_LINK). Past one, the payment is
// made as always and its receipt page shown; only the e-mail is not written. A checkout session's
// shopperContact comes from the merchant's own server, not from the shopper, and is not limited.

export interface ReceiptLimits {
  readonly perAddress: number;
  readonly perLink: number;
}

const HOUR_MS = 3_600_000;

function countersOf(limits: ReceiptLimits, merchantId: string, link: string, address: string): Counter[] {
  return [
    { key: `receipt-address:${merchantId}|${networkOf(address)}`, limit: { failures: limits.perAddress, windowMs: HOUR_MS } },
    { key: `receipt-link:${link}`, limit: { failures: limits.perLink, windowMs: HOUR_MS } },
  ];
}

/**
 * Whether a receipt of this link (of this merchant), to an address typed from `address`, may be
 * written now; when it may, it is counted. Counted first and given back when past a limit
 * (src/throttle/service.ts, reserve), so payments made at once cannot all pass a check made before
 * any was counted.
 */
export async function takeReceipt(
  tx: Queryable,
  now: Date,
  limits: ReceiptLimits,
  on: { merchantId: string; link: string },
  address: string,
): Promise<boolean> {
  if (limits.perAddress === 0 || limits.perLink === 0) return false;
  return (await reserve(tx, now, countersOf(limits, on.merchantId, on.link, address))) === 0;
}
