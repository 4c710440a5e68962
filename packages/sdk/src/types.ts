// Request and response types of the paylinks API. Written by hand so the SDK carries no server code;
// the service's test suite checks them against the server's own schemas at compile time.

/** On every response, errors included: when (UTC, microseconds) and the response's id. */
export interface Envelope {
  /** ISO 8601 UTC with microseconds, e.g. 2026-11-21T13:57:00.123456Z */
  responseDateTime: string;
  /** UUID v4; quote it to an operator to find the request's log lines. */
  responseIdentifier: string;
}

export type LinkType = 'PayByLink' | 'TokenizeByLink';
export type RecurringProcessingModel = 'CardOnFile' | 'Subscription' | 'UnscheduledCardOnFile';
export type Culture = 'is' | 'en';
/** `Completed` appears for a tokenize-by-link after its tokenisation. */
export type PaymentLinkStatus = 'Active' | 'Expired' | 'Used' | 'Disabled' | 'Completed';
export type ShopperField = 'Ssn' | 'FullName' | 'Address' | 'PostCode' | 'City' | 'Country' | 'Telephone' | 'EmailAddress' | 'Comments';
export type RequirementType = 'Hidden' | 'Optional' | 'Required' | 'Prefilled';
export type PaymentEventType = 'Authorization' | 'Capture' | 'Tokenization' | 'Refund' | 'TokenDisabled' | 'Adjustment';
/** EndpointDisabled: another of the merchant's webhooks was disabled because its deliveries kept failing (sent to every webhook). */
export type EventType = PaymentEventType | 'EndpointDisabled';
export type DeliveryState = 'Pending' | 'Delivered' | 'Failed';
export type SessionStatus = 'New' | 'Completed' | 'Expired';

export interface PageParams {
  /** From 0. */
  page?: number;
  /** 1 to 100, default 20. */
  pageSize?: number;
}

// ------------------------------------------------------------------ payment links

/** A line of a link: amountWithoutDiscount = unitPrice × quantity, and amount at most that. */
export interface Item {
  name: string;
  quantity: number;
  unitPrice: number;
  amountWithoutDiscount: number;
  amount: number;
  /**
   * PayByLink only: the shopper may change the quantity on the payment page within this range
   * (0 ≤ minimum ≤ quantity ≤ maximum ≤ 99); amount ÷ quantity must be whole (ending in 00 for ISK).
   * Present in a read answer only when set.
   */
  adjustableQuantity?: { minimum: number; maximum: number };
}

export interface ShopperInfo {
  field: ShopperField;
  requirementType: RequirementType;
  /** Required with `Prefilled`, forbidden otherwise. */
  prefilledValue?: string | null;
}

/** Create Payment Link. */
export interface CreatePaymentLinkParams {
  type: LinkType;
  terminalIdentifier: string;
  /** Minor units; 0 for a TokenizeByLink; ISK amounts end in 00. */
  amount: number;
  currency: string;
  /** At least one for a PayByLink (adding up to `amount`); empty or absent for a TokenizeByLink. */
  items?: Item[];
  /** Required for a TokenizeByLink, forbidden for a PayByLink. */
  recurringProcessingModel?: RecurringProcessingModel;
  culture?: Culture;
  themeKey?: string;
  /** ISO 8601 UTC, in the future; becomes `validUntil`. */
  expiresAt?: string;
  description?: string;
  returnUrl?: string;
  /** Becomes `maxSalesCount`. */
  exactSalesCount?: number;
  shopperInfo?: ShopperInfo[];
  /** Plain text (1–500 characters) on the receipt page after a payment; the receipt then waits for the shopper. */
  completionMessage?: string;
  /** Plain text (1–500 characters) on the link's page once it is Disabled, Expired or Used, instead of the generic sentence. */
  inactiveMessage?: string;
  /** Absolute http(s) address of the terms; the payment page then asks the shopper to accept them before paying. */
  termsUrl?: string;
  /** PayByLink only: the payment page takes your promotion codes. Default false. */
  allowPromotionCodes?: boolean;
  /** Whether the payment page e-mails the shopper a receipt to the address they typed. Default true. */
  emailReceipts?: boolean;
  /** Up to 3 questions on the payment page, answered with the payment. */
  customFields?: CustomFieldParams[];
}

export type CustomFieldType = 'Text' | 'Number' | 'Dropdown';

/** A custom field as create and update take it. */
export interface CustomFieldParams {
  /** A letter, then letters, digits, `_` or `-`; 1–30 characters; unique in the link (any case). The answers name the field by it. */
  key: string;
  type: CustomFieldType;
  /** 1–50 characters; shown in Icelandic, and in English too unless labelEn is given. */
  label: string;
  /** 1–50 characters; the label on the English page. */
  labelEn?: string | null;
  required: boolean;
  /** Text only: the longest answer, 1–255; default 255. */
  maxLength?: number | null;
  /** Dropdown only, and required there: 1–10 distinct choices of 1–100 characters. */
  options?: string[] | null;
}

/** A custom field as a link reads: a Text has its maxLength, a Dropdown its options; labelEn only when set. */
export interface CustomField {
  key: string;
  type: CustomFieldType;
  label: string;
  labelEn?: string;
  required: boolean;
  maxLength?: number;
  options?: string[];
}

export interface CreatePaymentLinkResponse extends Envelope {
  paymentLinkReference: string;
  url: string;
}

export interface Submission {
  answers: { field: string; value: string }[];
  completed: boolean;
  amount: number;
  currency: string;
  token: string | null;
  payfacReference: string | null;
  /** Present only when the link had custom fields at the payment: the answers given (an unanswered optional field is left out). */
  customFieldAnswers?: { key: string; value: string }[];
  /** Present only when the link has an adjustable quantity: each item at the quantity the shopper chose, and its amount at it. */
  items?: { name: string; quantity: number; amount: number }[];
}

export interface PaymentLink {
  terminalIdentifier: string;
  themeKey: string | null;
  paymentLinkReference: string;
  description: string;
  amount: number;
  currency: string;
  returnUrl: string | null;
  status: PaymentLinkStatus;
  culture: Culture;
  type: LinkType;
  url: string;
  createdAt: string;
  validUntil: string | null;
  recurringProcessingModel: string | null;
  visitCount: number;
  salesCount: number;
  maxSalesCount: number | null;
  items: Item[];
  shopperInfos: { field: ShopperField; requirementType: RequirementType; prefilledValue: string | null }[];
  submissions: Submission[];
  /** Present only when set. */
  completionMessage?: string;
  /** Present only when set. */
  inactiveMessage?: string;
  /** Present only when set. */
  termsUrl?: string;
  /** Present only when set. */
  customFields?: CustomField[];
  /** Present only when true: the payment page takes promotion codes. */
  allowPromotionCodes?: true;
  /** Present only when false: the payment page e-mails no receipt. */
  emailReceipts?: false;
}

export interface PaymentLinkResponse extends Envelope {
  paymentLink: PaymentLink;
}

export interface PaymentLinkListEntry {
  paymentLinkReference: string;
  description: string;
  amount: number;
  currency: string;
  type: LinkType;
  createdAt: string;
}

export interface PaymentLinkList extends Envelope {
  data: PaymentLinkListEntry[];
  totalCount: number;
}

/**
 *  and Updating a link. Left-out fields keep their value; `null` clears a nullable field. Fields
 * that never change may be sent unchanged (a read-modify-write of `get()`'s `paymentLink` works).
 */
export interface UpdatePaymentLinkParams {
  paymentLinkReference: string;
  description?: string;
  themeKey?: string | null;
  returnUrl?: string | null;
  culture?: Culture;
  validUntil?: string | null;
  maxSalesCount?: number | null;
  shopperInfos?: ShopperInfo[];
  /** null clears; left out keeps. */
  completionMessage?: string | null;
  /** null clears; left out keeps. */
  inactiveMessage?: string | null;
  /** null clears; left out keeps. */
  termsUrl?: string | null;
  /** Replaces the link's list; null or [] clears; left out keeps. */
  customFields?: CustomFieldParams[] | null;
  /** PayByLink only; left out keeps. */
  allowPromotionCodes?: boolean;
  /** Left out keeps. */
  emailReceipts?: boolean;
  /** Only while salesCount is 0. */
  amount?: number;
  /** Only while salesCount is 0. */
  currency?: string;
  /** Only while salesCount is 0. */
  items?: Item[];
  terminalIdentifier?: string;
  type?: string;
  url?: string;
  createdAt?: string;
  visitCount?: number;
  salesCount?: number;
  recurringProcessingModel?: string | null;
  status?: string;
}

// ------------------------------------------------------------------ hosted checkout

export interface CheckoutItem {
  name: string;
  /** Minor units; negative for a discount line. */
  amount: number;
  /** May be fractional. */
  quantity?: number | string;
  unitPrice?: number;
}

export interface CreateCheckoutParams {
  amount: number;
  currency: string;
  returnUrl: string;
  /** Your own reference, echoed byte for byte as `merchantReference` in webhooks. */
  reference: string;
  terminalIdentifier: string;
  culture?: Culture;
  isManualCapture?: boolean;
  captureHoursDelay?: number;
  isPreAuth?: boolean;
  expiresAt?: string;
  merchantShopperReference?: string;
  items?: CheckoutItem[];
  themeKey?: string;
  shopperContact?: string | { email: string };
  recurringProcessingModel?: RecurringProcessingModel;
  abandonUrl?: string;
}

export interface CreateCheckoutResponse extends Envelope {
  checkoutReference: string;
  url: string;
}

export interface CheckoutStatusResponse extends Envelope {
  status: SessionStatus;
  /** null until Completed. */
  payfacReference: string | null;
}

// ------------------------------------------------------------------ webhooks

export interface RegisterWebhookParams {
  /** Absolute https URL. */
  url: string;
  /** Empty or absent: every event type. */
  eventTypes?: EventType[];
  description?: string;
  /** Attempts to this webhook in flight at once, 1 to 100 (default 10). */
  maxInFlight?: number;
  /** Deliveries per second at most, 1 to 1000; null or absent: no limit. */
  rateLimit?: number | null;
  /**
   * `fifo`: one delivery at a time, in the order the events were recorded; one that fails holds back the
   * later ones until it succeeds or has used its five attempts (a slow receiver gets one request at a
   * time). `unordered` (the default): up to maxInFlight at once, in no set order.
   */
  ordering?: WebhookOrdering;
}

/** How a webhook's deliveries are ordered (see RegisterWebhookParams.ordering). */
export type WebhookOrdering = 'unordered' | 'fifo';

export interface UpdateWebhookParams {
  url?: string;
  eventTypes?: EventType[];
  description?: string;
  enabled?: boolean;
  maxInFlight?: number;
  /** null removes the limit. */
  rateLimit?: number | null;
  /** Deliveries already waiting follow the new ordering too. */
  ordering?: WebhookOrdering;
}

export interface Webhook {
  webhookId: string;
  /** `url`: delivered to its URL; `listener`: delivered to `paylinks listen` (or `webhooks.listen`). */
  kind: 'url' | 'listener';
  /** Where deliveries go; `listen:{webhookId}` for a listener. */
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  /** Attempts in flight at once (the webhook's own setting, else the default). */
  maxInFlight: number;
  /** Deliveries per second at most; null: no limit. */
  rateLimit: number | null;
  /** `fifo`: one delivery at a time, in the order the events were recorded; `unordered`: no set order. */
  ordering: WebhookOrdering;
  /** When a delivery last succeeded (to the minute); null: never. */
  lastSuccessAt: string | null;
  /** Since when deliveries have failed with no success in between; null while healthy. */
  failingSince: string | null;
  /** Deliveries that ended Failed since the last success. */
  failedDeliveries: number;
  /** `failing`: disabled automatically because its deliveries kept failing (an EndpointDisabled event was sent). */
  disabledReason: 'failing' | null;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The secrets are shown only here and by rotateSecrets: store them. */
export interface RegisterWebhookResponse extends Webhook, Envelope {
  /** Arrives as the raw Authorization header of every delivery. */
  apiKey: string;
  /** Hex; signs `hmacSignature` (the webhook signature rule). */
  hmacKey: string;
  /** The hmacKey as a Standard Webhooks secret (`whsec_...`): verifies the `webhook-signature` header. */
  signingSecret: string;
}

export interface WebhookResponse extends Envelope {
  webhook: Webhook;
}

export interface WebhookList extends Envelope {
  data: Webhook[];
  totalCount: number;
}

export interface RotateSecretsResponse extends Envelope {
  webhookId: string;
  apiKey: string;
  hmacKey: string;
  signingSecret: string;
  /** Until when the previous key still signs beside the new one; null without an overlap. */
  previousSecretValidUntil: string | null;
}

export interface RegisterListenerParams {
  /** Event types to receive; empty or absent: all. */
  eventTypes?: EventType[];
  description?: string;
}

export interface RegisterListenerResponse extends RegisterWebhookResponse {
  /** True when a listener left behind by an earlier run was taken again, with its secrets. */
  reused: boolean;
}

/** One attempt of a listener's delivery, as the stream carries it. */
export interface ListenerAttempt {
  deliveryId: string;
  eventType: EventType;
  payfacReference: string;
  attemptNumber: number;
  correlationId: string;
  /** Send it back, as it is, in the report. */
  attemptToken: string;
  /** Content-Type, Authorization and X-Webhook-CorrelationId, as a URL webhook's receiver gets them. */
  headers: Record<string, string>;
  /** The exact body: forward it byte for byte (the signature is over its values). */
  body: string;
}

export interface ListenOptions {
  /** Ends the stream (the iterator returns). */
  signal?: AbortSignal;
  /** Milliseconds without a byte from the service after which the stream is given up (a PaylinksNetworkError with `timedOut`). */
  silenceMs?: number;
  /** One client's name for itself across reconnections: its new stream replaces the one it left open. */
  session?: string;
}

export type ListenerEvent = { type: 'ready'; webhookId: string } | { type: 'attempt'; attempt: ListenerAttempt };

export interface ListenerAttemptReport {
  deliveryId: string;
  attemptToken: string;
  /** Your receiver's status, or null when it gave none. */
  responseStatus: number | null;
  /** The first 64 KiB of its answer. */
  responseBody: string | null;
  durationMs: number;
  errorKind: 'timeout' | 'connection' | 'tls' | 'status' | null;
  errorDetail: string | null;
}

export interface ListenerAttemptReportResponse extends Envelope {
  recorded: true;
}

// ------------------------------------------------------------------ deliveries

export interface ListDeliveriesParams extends PageParams {
  /** A payment's reference: its deliveries and those of its captures, refunds and adjustments. */
  payfacReference?: string;
  correlationId?: string;
  webhookId?: string;
  state?: DeliveryState;
}

export interface Delivery {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payfacReference: string;
  state: DeliveryState;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  /** A fifo webhook's pending delivery that is not first in its queue: the delivery at the head, sent first. Otherwise null. */
  waitingBehind: string | null;
}

export interface DeliveryAttempt {
  attemptNumber: number;
  correlationId: string;
  sentAt: string;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  errorKind: 'timeout' | 'connection' | 'tls' | 'status' | null;
  /**
   * Why the attempt failed, when no HTTP status says it: the TLS certificate error code
   * (`DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`, ...), the connection error
   * (`ECONNREFUSED: ...`), or the time limit. Null on success and for a failed status.
   */
  errorDetail: string | null;
}

export interface DeliveryList extends Envelope {
  data: Delivery[];
  totalCount: number;
}

export interface DeliveryResponse extends Envelope {
  delivery: Delivery & { body: string; attempts: DeliveryAttempt[] };
}

export interface RedeliverResponse extends Envelope {
  deliveryId: string;
}

// ------------------------------------------------------------------ sandbox

export interface TriggerEventParams {
  eventType: PaymentEventType;
  amount: number;
  currency: string;
  success?: boolean;
  reason?: string;
  merchantReference?: string;
  checkoutReference?: string;
  additionalData?: Record<string, string>;
}

export interface TriggerEventResponse extends Envelope {
  eventId: string;
  payfacReference: string;
}

// ------------------------------------------------------------------ modifications and token payments

export interface CaptureParams {
  reference: string;
  payfacReference: string;
  amount: number;
  currency: string;
}

export type RefundReason = 'OTHER' | 'RETURN' | 'DUPLICATE' | 'FRAUD' | 'CUSTOMER REQUEST';

export interface RefundParams extends CaptureParams {
  refundReason?: RefundReason;
}

export interface ReverseParams {
  reference: string;
  payfacReference: string;
}

/** amount is the new authorised amount (minor units), higher or lower than the one before. */
export type AdjustParams = CaptureParams;

/** The outcome arrives later as a webhook (Capture, Refund or Adjustment, with originalPayfacReference). */
export interface ModificationResponse extends Envelope {
  status: 'Received';
  payfacReference: string;
}

export interface ChargeTokenParams {
  terminalIdentifier: string;
  /** Minor units. */
  amount: number;
  currency: string;
  reference: string;
  returnUrl: string;
  /** Where the payment is made: Web, iOS, Android. */
  channel: string;
  shopperIp?: string;
  origin?: string;
  /**
   * tokenValue: additionalData.token of the Tokenization webhook. CardOnFile: the shopper is present
   * (any saved card); Subscription and UnscheduledCardOnFile: merchant-initiated, only for a card
   * saved for that model.
   */
  tokenDetails: { tokenValue: string; recurringProcessingModel: RecurringProcessingModel };
}

export interface ChargeTokenResponse extends Envelope {
  resultCode: 'Authorised' | 'Refused' | 'RedirectShopper';
  /** The payment; its Authorization webhook carries the same. */
  payfacReference: string;
  /** Only with RedirectShopper. */
  redirect?: { url: string };
  /** Only with Refused: the reason of the Authorization webhook. */
  refusalReason?: string;
}

export interface DisableTokenResponse extends Envelope {
  success: true;
}

// ------------------------------------------------------------------ the webhook message (the webhook message)

export interface WebhookAdditionalData {
  eventType?: string;
  cardNumber?: string;
  cardUsage?: string;
  threeDAuthenticated?: string;
  originalPayfacReference?: string;
  paymentMethod?: string;
  cardSummary?: string;
  authCode?: string;
  token?: string;
  [name: string]: string | undefined;
}

/** The seven values the signature covers, in the order of the webhook signature rule. */
export interface SignedFields {
  checkoutReference: string | null;
  payfacReference: string;
  merchantReference: string | null;
  /** Minor units, as a string. */
  amount: string;
  currency: string;
  reason: string | null;
  /** "true" or "false". */
  success: string;
}

export interface WebhookMessage extends SignedFields {
  hmacSignature: string;
  additionalData?: WebhookAdditionalData;
}

export interface AdvanceAllResponse extends Envelope {
  /** How many pending deliveries became due now. */
  advanced: number;
}

export interface RecoverResponse extends Envelope {
  /** How many Failed deliveries were queued again as new deliveries. */
  requeued: number;
  /** True when this window was recovered before: nothing was queued now. */
  repeated: boolean;
}

/** A settlement batch: what was captured less what was refunded in one currency up to a cut-off, its fees and the payout. Minor units. */
export interface Settlement {
  settlementId: string;
  currency: string;
  cutoffAt: string;
  grossAmount: number;
  feeAmount: number;
  /** grossAmount − feeAmount; negative when refunds and fees exceed captures. */
  netAmount: number;
  lineCount: number;
}

export interface SettlementLine {
  payfacReference: string;
  originalPayfacReference: string;
  type: 'Capture' | 'Refund';
  /** Signed: a refund's is negative. */
  amount: number;
  fee: number;
  bookedAt: string;
}

export interface SettlementList extends Envelope {
  data: Settlement[];
  totalCount: number;
}

export interface SettlementResponse extends Envelope {
  settlement: Settlement & { lines: SettlementLine[] };
}

export interface SandboxSettleResponse extends Envelope {
  data: Settlement[];
}

/** A promotion code: a percentage or a fixed amount in one currency off a link's total (docs/api.md, Promotion codes). */
export interface PromotionCode {
  promotionCodeId: string;
  code: string;
  percentOff: number | null;
  /** Minor units, with currency. */
  amountOff: number | null;
  currency: string | null;
  expiresAt: string | null;
  maxRedemptions: number | null;
  /** Successful payments that used the code. */
  redemptionCount: number;
  active: boolean;
  createdAt: string;
}

/** Send percentOff, or amountOff with currency (ISK amounts end in 00). */
export interface CreatePromotionCodeParams {
  /** Letters, digits, - and _, 1–40 characters; unique per merchant without regard to case. */
  code: string;
  percentOff?: number;
  amountOff?: number;
  currency?: string;
  /** ISO 8601 UTC, in the future; default never. */
  expiresAt?: string;
  /** Default unlimited. */
  maxRedemptions?: number;
  /** Default true. */
  active?: boolean;
}

/** Left out keeps; null: never expires, or no cap. The code and its discount do not change. */
export interface UpdatePromotionCodeParams {
  active?: boolean;
  expiresAt?: string | null;
  maxRedemptions?: number | null;
}

export interface PromotionCodeResponse extends Envelope {
  promotionCode: PromotionCode;
}

export interface PromotionCodeList extends Envelope {
  data: PromotionCode[];
  totalCount: number;
}
