// @paylinks/sdk: the merchant's side of paylinks. No runtime dependencies beyond Node 20.
export {
  Paylinks,
  PaymentLinks,
  HostedCheckout,
  Webhooks,
  Deliveries,
  Modifications,
  Payments,
  Sandbox,
  Settlements,
  PromotionCodes,
  SDK_VERSION,
  parseRetryAfter,
  type PaylinksOptions,
  type RequestOptions,
} from './client.js';
export {
  PaylinksError,
  PaylinksApiError,
  PaylinksValidationError,
  PaylinksAuthenticationError,
  PaylinksPermissionError,
  PaylinksNotFoundError,
  PaylinksConflictError,
  PaylinksRateLimitError,
  PaylinksServerError,
  PaylinksNetworkError,
  type FieldError,
  type ApiErrorInit,
} from './errors.js';
export {
  verifyWebhook,
  verifyStandardWebhook,
  type VerifyStandardWebhookInput,
  computeSignature,
  signaturePayload,
  WebhookVerificationError,
  type WebhookVerificationFailure,
  type VerifyWebhookInput,
  type HeadersLike,
} from './verify.js';
export { handleOnce, eventKey, InMemoryEventStore, type ProcessedEventStore, type HandleOnceResult } from './dedupe.js';
export type * from './types.js';
