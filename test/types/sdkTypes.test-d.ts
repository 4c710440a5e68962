import type { StreamedAttempt } from '../../src/webhooks/listen/hub.js';
import type { Static, TSchema } from 'typebox';
import { describe, expectTypeOf, it } from 'vitest';
import type * as sdk from '@paylinks/sdk';
import type * as links from '../../src/paymentLinks/schemas.js';
import type * as checkout from '../../src/checkout/schemas.js';
import type * as webhooks from '../../src/webhooks/schemas.js';
import type * as payments from '../../src/payments/schemas.js';
import type * as settlements from '../../src/settlements/schemas.js';
import type * as promotionCodes from '../../src/promotionCodes/schemas.js';

// The SDK's hand-written types against the server's route schemas (docs/style.md, Schemas are the source of truth: the schemas are the
// source of truth). Compile-time: `npm run typecheck` fails when a field is added, dropped or renamed
// on one side only. The SDK narrows a few strings to their enums (culture, shopper fields), so
// response types are compared by their field names and the request types by assignability.

type S<T extends TSchema> = Static<T>;
type Keys<T> = keyof T & string;

describe('SDK types match the server schemas', () => {
  it('settlements (docs/api.md, Settlements)', () => {
    expectTypeOf<sdk.Settlement>().toEqualTypeOf<S<typeof settlements.BatchSchema>>();
    expectTypeOf<sdk.SettlementLine>().toExtend<S<typeof settlements.LineSchema>>();
    expectTypeOf<Keys<sdk.SettlementLine>>().toEqualTypeOf<Keys<S<typeof settlements.LineSchema>>>();
    expectTypeOf<Keys<sdk.SettlementList>>().toEqualTypeOf<Keys<S<typeof settlements.ListResponse>>>();
    expectTypeOf<Keys<sdk.SettlementResponse>>().toEqualTypeOf<Keys<S<typeof settlements.DetailsResponse>>>();
    expectTypeOf<Keys<sdk.SettlementResponse['settlement']>>().toEqualTypeOf<Keys<S<typeof settlements.DetailsResponse>['settlement']>>();
    expectTypeOf<Keys<sdk.SandboxSettleResponse>>().toEqualTypeOf<Keys<S<typeof settlements.SandboxRunResponse>>>();
  });

  it('promotion codes (docs/api.md, Promotion codes)', () => {
    expectTypeOf<sdk.PromotionCode>().toEqualTypeOf<S<typeof promotionCodes.PromotionCodeSchema>>();
    expectTypeOf<Keys<sdk.PromotionCodeList>>().toEqualTypeOf<Keys<S<typeof promotionCodes.ListResponse>>>();
    expectTypeOf<Keys<sdk.PromotionCodeResponse>>().toEqualTypeOf<Keys<S<typeof promotionCodes.CodeResponse>>>();
    expectTypeOf<sdk.CreatePromotionCodeParams>().toExtend<S<typeof promotionCodes.CreateBody>>();
    expectTypeOf<Keys<sdk.CreatePromotionCodeParams>>().toEqualTypeOf<Keys<S<typeof promotionCodes.CreateBody>>>();
    expectTypeOf<sdk.UpdatePromotionCodeParams>().toEqualTypeOf<S<typeof promotionCodes.UpdateBody>>();
  });

  it('payment links (4.1–4.5)', () => {
    expectTypeOf<Keys<sdk.CreatePaymentLinkResponse>>().toEqualTypeOf<Keys<S<typeof links.CreateResponse>>>();
    expectTypeOf<Keys<sdk.PaymentLinkResponse>>().toEqualTypeOf<Keys<S<typeof links.DetailsResponse>>>();
    expectTypeOf<Keys<sdk.PaymentLink>>().toEqualTypeOf<Keys<S<typeof links.PaymentLinkSchema>>>();
    expectTypeOf<Keys<sdk.Submission>>().toEqualTypeOf<Keys<S<typeof links.PaymentLinkSchema>['submissions'][number]>>();
    expectTypeOf<sdk.PaymentLinkListEntry>().toExtend<S<typeof links.ListEntrySchema>>();
    expectTypeOf<Keys<sdk.PaymentLinkListEntry>>().toEqualTypeOf<Keys<S<typeof links.ListEntrySchema>>>();
    expectTypeOf<Keys<sdk.PaymentLinkList>>().toEqualTypeOf<Keys<S<typeof links.ListResponse>>>();
    // Every field the SDK sends is one the server takes (the server's synonym shopperInfos aside).
    expectTypeOf<sdk.CreatePaymentLinkParams>().toExtend<S<typeof links.CreateBody>>();
    expectTypeOf<Keys<sdk.CreatePaymentLinkParams>>().toEqualTypeOf<Exclude<Keys<S<typeof links.CreateBody>>, 'shopperInfos'>>();
    expectTypeOf<sdk.UpdatePaymentLinkParams>().toExtend<S<typeof links.UpdateBody>>();
    expectTypeOf<Keys<sdk.UpdatePaymentLinkParams>>().toEqualTypeOf<Keys<S<typeof links.UpdateBody>>>();
    expectTypeOf<sdk.Item>().toEqualTypeOf<S<typeof links.ItemSchema>>();
  });

  it('hosted checkout (§Hosted checkout)', () => {
    expectTypeOf<sdk.CreateCheckoutParams>().toExtend<S<typeof checkout.CreateCheckoutBody>>();
    expectTypeOf<Keys<sdk.CreateCheckoutParams>>().toEqualTypeOf<Keys<S<typeof checkout.CreateCheckoutBody>>>();
    expectTypeOf<sdk.CreateCheckoutResponse>().toEqualTypeOf<S<typeof checkout.CreateCheckoutResponse>>();
    expectTypeOf<sdk.CheckoutStatusResponse>().toExtend<S<typeof checkout.StatusResponse>>();
    expectTypeOf<Keys<sdk.CheckoutStatusResponse>>().toEqualTypeOf<Keys<S<typeof checkout.StatusResponse>>>();
  });

  it('webhooks, deliveries and the sandbox (§Webhooks, §Deliveries)', () => {
    expectTypeOf<sdk.RegisterWebhookParams>().toExtend<S<typeof webhooks.RegisterBody>>();
    expectTypeOf<Keys<sdk.RegisterWebhookParams>>().toEqualTypeOf<Keys<S<typeof webhooks.RegisterBody>>>();
    expectTypeOf<Keys<sdk.UpdateWebhookParams>>().toEqualTypeOf<Keys<S<typeof webhooks.UpdateBody>>>();
    expectTypeOf<Keys<sdk.RegisterWebhookResponse>>().toEqualTypeOf<Keys<S<typeof webhooks.RegisterResponse>>>();
    expectTypeOf<S<typeof webhooks.WebhookResponse>>().toExtend<sdk.WebhookResponse>();
    expectTypeOf<S<typeof webhooks.WebhookListResponse>>().toExtend<sdk.WebhookList>();
    expectTypeOf<S<typeof webhooks.RotateResponse>>().toExtend<sdk.RotateSecretsResponse>();
    expectTypeOf<Keys<sdk.Delivery>>().toEqualTypeOf<Keys<S<typeof webhooks.DeliveryListResponse>['data'][number]>>();
    expectTypeOf<Keys<sdk.DeliveryResponse['delivery']>>().toEqualTypeOf<Keys<S<typeof webhooks.DeliveryResponse>['delivery']>>();
    expectTypeOf<Keys<sdk.DeliveryAttempt>>().toEqualTypeOf<Keys<S<typeof webhooks.DeliveryResponse>['delivery']['attempts'][number]>>();
    expectTypeOf<S<typeof webhooks.RedeliverResponse>>().toExtend<sdk.RedeliverResponse>();
    expectTypeOf<Keys<sdk.TriggerEventParams>>().toEqualTypeOf<Keys<S<typeof webhooks.SandboxEventBody>>>();
    expectTypeOf<S<typeof webhooks.SandboxEventResponse>>().toExtend<sdk.TriggerEventResponse>();
    expectTypeOf<Keys<sdk.RegisterListenerParams>>().toEqualTypeOf<Keys<S<typeof webhooks.ListenerBody>>>();
    expectTypeOf<Keys<sdk.RegisterListenerResponse>>().toEqualTypeOf<Keys<S<typeof webhooks.ListenerResponse>>>();
    expectTypeOf<sdk.ListenerAttemptReport>().toExtend<S<typeof webhooks.AttemptReportBody>>();
    expectTypeOf<Keys<sdk.ListenerAttemptReport>>().toEqualTypeOf<Keys<S<typeof webhooks.AttemptReportBody>>>();
    expectTypeOf<Keys<sdk.ListenerAttempt>>().toEqualTypeOf<Keys<StreamedAttempt>>();
  });

  it('modifications and token payments (§Modifications and saved cards)', () => {
    expectTypeOf<sdk.CaptureParams>().toExtend<S<typeof payments.CaptureBody>>();
    expectTypeOf<Keys<sdk.CaptureParams>>().toEqualTypeOf<Keys<S<typeof payments.CaptureBody>>>();
    expectTypeOf<sdk.RefundParams>().toExtend<S<typeof payments.RefundBody>>();
    expectTypeOf<Keys<sdk.RefundParams>>().toEqualTypeOf<Keys<S<typeof payments.RefundBody>>>();
    expectTypeOf<sdk.ReverseParams>().toEqualTypeOf<S<typeof payments.ReverseBody>>();
    expectTypeOf<sdk.ModificationResponse>().toEqualTypeOf<S<typeof payments.ModificationResponse>>();
    expectTypeOf<sdk.ChargeTokenParams>().toExtend<S<typeof payments.TokenPaymentBody>>();
    expectTypeOf<Keys<sdk.ChargeTokenParams>>().toEqualTypeOf<Keys<S<typeof payments.TokenPaymentBody>>>();
    expectTypeOf<Keys<sdk.ChargeTokenResponse>>().toEqualTypeOf<Keys<S<typeof payments.TokenPaymentResponse>>>();
    expectTypeOf<sdk.ChargeTokenResponse>().toExtend<S<typeof payments.TokenPaymentResponse>>();
    expectTypeOf<sdk.DisableTokenResponse>().toEqualTypeOf<S<typeof payments.DisableTokenResponse>>();
  });
});
