import type { PoolClient } from 'pg';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { linkStatus } from '../paymentLinks/service.js';
import { linkForPage, lockLinkForPayment, type CustomField, type LinkForPage } from '../paymentLinks/shopper.js';
import type { ShopperInfo } from '../paymentLinks/rules.js';
import { hasAdjustable, type QuantityItem } from '../paymentLinks/quantities.js';
import { withCheckoutReference } from '../urls.js';
import { sessionStatusOf } from './service.js';
import { findSession, lockSession, type SessionRow } from './sql.js';

// A payment link or a checkout session as the shopper's pages show it and a payment charges it (a
// Checkoutable), read as it is or on its locked row.

export interface Answer {
  field: string;
  value: string;
}

export interface DisplayLine {
  name: string;
  quantity: number | null;
  unitPrice: number | null;
  /** Before discount, when the line has one (links). */
  amountWithoutDiscount: number | null;
  amount: number;
}

export type Target = { kind: 'link' | 'session'; reference: string };

/** A link or a session as the shopper's page shows it and a payment charges it. */
export interface Checkoutable {
  kind: 'link' | 'session';
  reference: string;
  merchantId: string;
  merchantName: string;
  terminalIdentifier: string;
  description: string;
  amount: number;
  currency: string;
  culture: string;
  themeKey: string | null;
  items: DisplayLine[];
  shopperInfos: ShopperInfo[];
  /** Where the shopper goes after a successful payment (a session's carries checkoutReference). */
  returnUrl: string | null;
  /**
   * Where "Cancel" goes: a link's returnUrl; a session's abandonUrl, else its returnUrl (with
   * checkoutReference, whose status then reads New: the shop sees the order is unpaid).
   */
  cancelUrl: string | null;
  /** Saves the card (TokenizeByLink, or a session with recurringProcessingModel). */
  tokenize: boolean;
  recurringProcessingModel: string | null;
  shopperEmail: string | null;
  status: string;
  payable: boolean;
  merchantReference: string;
  checkoutReference: string | null;
  preAuth: boolean;
  manualCapture: boolean;
  captureHoursDelay: number | null;
  merchantShopperReference: string | null;
  /** A link's own sentence on its receipt (docs/api.md, Messages and terms); null for a session. */
  completionMessage: string | null;
  /** A link's own sentence on its page once it is Disabled, Expired or Used; null for a session. */
  inactiveMessage: string | null;
  /** The terms a link's shopper accepts before paying; null: none asked (always for a session). */
  termsUrl: string | null;
  /** A link's own questions on its payment page (docs/api.md, Custom fields); null: none (always for a session). */
  customFields: CustomField[] | null;
  /** A link's items when the shopper may change a quantity of one (docs/rules.md, §Adjustable quantities); else null. */
  choice: QuantityItem[] | null;
  /** The quantities chosen, one per item of `choice`, once they are (items and amount then follow them); null: the link's own. */
  chosen: number[] | null;
  /** The page takes the merchant's promotion codes (a PayByLink with allowPromotionCodes; never a session). */
  allowPromotionCodes: boolean;
  /** A link's shopper is e-mailed a receipt (unless its owner turned that off); a session's always, to its shopperContact. */
  emailReceipts: boolean;
  /**
   * How many more payments it takes, counting neither the places held by payments in flight nor
   * whether it is payable: a link's maxSalesCount less its sales (null: no cap), 1 for a link that
   * saves a card and for a session (each is paid once).
   */
  placesLeft: number | null;
}

/** What only a link's page has (messages, terms, custom fields, quantities, codes), absent: a session's page and a plain checkout. */
const NO_LINK_EXTRAS = {
  completionMessage: null,
  inactiveMessage: null,
  termsUrl: null,
  customFields: null,
  choice: null,
  chosen: null,
  allowPromotionCodes: false,
  emailReceipts: true,
} as const satisfies Partial<Checkoutable>;

/**
 * A checkout with none of the extras: no card saved, captured at once, no shopper e-mail, no message
 * or terms of the merchant's. The pages made from something that is not a link or a session (a saved
 * card's charge, the theme editor's preview) start from it.
 */
export const PLAIN_CHECKOUT = {
  tokenize: false,
  recurringProcessingModel: null,
  shopperEmail: null,
  preAuth: false,
  manualCapture: false,
  captureHoursDelay: null,
  merchantShopperReference: null,
  placesLeft: 1,
  ...NO_LINK_EXTRAS,
} as const satisfies Partial<Checkoutable>;

/** What a link and a session give their page alike, read from either as it is. */
type SameOnBoth = Pick<
  Checkoutable,
  'reference' | 'merchantId' | 'merchantName' | 'terminalIdentifier' | 'amount' | 'currency' | 'culture' | 'themeKey' | 'recurringProcessingModel'
>;

function sameOnBoth(x: SameOnBoth): SameOnBoth {
  return {
    reference: x.reference,
    merchantId: x.merchantId,
    merchantName: x.merchantName,
    terminalIdentifier: x.terminalIdentifier,
    amount: x.amount,
    currency: x.currency,
    culture: x.culture,
    themeKey: x.themeKey,
    recurringProcessingModel: x.recurringProcessingModel,
  };
}

function fromLink(link: LinkForPage, now: Date): Checkoutable {
  const status = linkStatus(link, now);
  const placesLeft = link.type === 'TokenizeByLink' ? 1 : link.maxSalesCount === null ? null : link.maxSalesCount - link.salesCount;
  return {
    kind: 'link',
    placesLeft,
    ...sameOnBoth(link),
    description: link.description,
    items: link.items.map((i) => ({
      name: i.name,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      amountWithoutDiscount: i.amountWithoutDiscount,
      amount: i.amount,
    })),
    shopperInfos: link.shopperInfos,
    returnUrl: link.returnUrl,
    cancelUrl: link.returnUrl,
    tokenize: link.type === 'TokenizeByLink',
    shopperEmail: null,
    status,
    payable: status === 'Active',
    merchantReference: link.reference,
    checkoutReference: null,
    preAuth: false,
    manualCapture: false,
    captureHoursDelay: null,
    merchantShopperReference: null,
    completionMessage: link.completionMessage,
    inactiveMessage: link.inactiveMessage,
    termsUrl: link.termsUrl,
    customFields: link.customFields,
    choice: hasAdjustable(link.items) ? link.items : null,
    chosen: null,
    allowPromotionCodes: link.allowPromotionCodes && link.type === 'PayByLink',
    emailReceipts: link.emailReceipts,
  };
}

function fromSession(s: SessionRow, now: Date): Checkoutable {
  const status = sessionStatusOf(s, now);
  return {
    kind: 'session',
    placesLeft: 1,
    ...sameOnBoth(s),
    description: '',
    items: s.items.map((i) => ({ name: i.name, quantity: i.quantity, unitPrice: i.unitPrice, amountWithoutDiscount: null, amount: i.amount })),
    shopperInfos: [],
    returnUrl: withCheckoutReference(s.returnUrl, s.reference),
    cancelUrl: s.abandonUrl ?? withCheckoutReference(s.returnUrl, s.reference),
    tokenize: s.recurringProcessingModel !== null,
    shopperEmail: s.shopperEmail,
    status,
    payable: status === 'New',
    merchantReference: s.merchantReference,
    checkoutReference: s.reference,
    preAuth: s.isPreAuth,
    manualCapture: s.isManualCapture,
    captureHoursDelay: s.captureHoursDelay,
    merchantShopperReference: s.merchantShopperReference,
    ...NO_LINK_EXTRAS,
  };
}

/** What a reference of ours can look like: URL-safe, at most 100 characters. */
export const PLAUSIBLE_REFERENCE = /^[A-Za-z0-9_-]{1,100}$/;

/** The page's view of a link or session; a link's page view is counted. */
export async function openCheckoutable(deps: { db: Database; clock: Clock }, target: Target, opts: { countVisit: boolean }): Promise<Checkoutable | undefined> {
  // Anything else is not found without asking the database: the public pages take any path.
  if (!PLAUSIBLE_REFERENCE.test(target.reference)) return undefined;
  const now = deps.clock.now();
  if (target.kind === 'link') {
    const link = await linkForPage(deps.db, target.reference, opts);
    return link ? fromLink(link, now) : undefined;
  }
  const session = await findSession(deps.db.pool, target.reference);
  return session ? fromSession(session, now) : undefined;
}

export async function lockTarget(tx: PoolClient, target: Target, now: Date): Promise<Checkoutable | undefined> {
  if (target.kind === 'link') {
    const link = await lockLinkForPayment(tx, target.reference);
    return link ? fromLink(link, now) : undefined;
  }
  const session = await lockSession(tx, target.reference);
  return session ? fromSession(session, now) : undefined;
}
