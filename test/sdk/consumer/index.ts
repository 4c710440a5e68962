// A merchant's program against the BUILT @paylinks/sdk, as an npm consumer sees it: the package's
// "exports", its declarations and its ESM JavaScript. It prints one JSON line for the test to check.
import {
  Paylinks,
  PaylinksNotFoundError,
  PaylinksValidationError,
  WebhookVerificationError,
  computeSignature,
  handleOnce,
  InMemoryEventStore,
  verifyWebhook,
  type CreatePaymentLinkParams,
  type PaymentLinkListEntry,
  type SignedFields,
  type WebhookMessage,
} from '@paylinks/sdk';

const baseUrl = process.env.PAYLINKS_BASE_URL ?? '';
const apiKey = process.env.PAYLINKS_API_KEY ?? '';
const terminalIdentifier = process.env.PAYLINKS_TERMINAL ?? '';

const paylinks = new Paylinks({ baseUrl, apiKey });

const params: CreatePaymentLinkParams = {
  type: 'PayByLink',
  terminalIdentifier,
  amount: 2500,
  currency: 'EUR',
  description: 'consumer',
  items: [{ name: 'Book', quantity: 1, unitPrice: 2500, amountWithoutDiscount: 2500, amount: 2500 }],
};
const created = await paylinks.paymentLinks.create(params);
const details = await paylinks.paymentLinks.get(created.paymentLinkReference);
const listed: PaymentLinkListEntry[] = [];
for await (const entry of paylinks.paymentLinks.listAll({ pageSize: 10 })) listed.push(entry);

let notFound = '';
try {
  await paylinks.paymentLinks.get('missing');
} catch (err) {
  if (err instanceof PaylinksNotFoundError) notFound = err.code;
}
let invalidFields: string[] = [];
try {
  await paylinks.paymentLinks.create({ ...params, amount: -1 });
} catch (err) {
  if (err instanceof PaylinksValidationError) invalidFields = Object.keys(err.fieldErrors);
}

// The webhook side: a message signed as the service signs it, verified, then handled once.
const hmacKey = '4eab969bd65a39c17c906dfcef1fe69d481716b0845a6c0892284cf9c06e4314';
const fields: SignedFields = {
  checkoutReference: null,
  payfacReference: '21135253156',
  merchantReference: '9990QQAZ1221',
  amount: '48900',
  currency: 'ISK',
  reason: null,
  success: 'true',
};
const rawBody = JSON.stringify({ ...fields, hmacSignature: computeSignature(hmacKey, fields), additionalData: { eventType: 'Authorization' } });
const message: WebhookMessage = verifyWebhook({ rawBody, headers: { authorization: 'whk' }, apiKey: 'whk', hmacKey });
const store = new InMemoryEventStore();
const first = await handleOnce(store, message, () => 'handled');
const second = await handleOnce(store, message, () => 'handled');
let refused = '';
try {
  verifyWebhook({ rawBody: rawBody.replace('48900', '48901'), headers: { authorization: 'whk' }, apiKey: 'whk', hmacKey });
} catch (err) {
  if (err instanceof WebhookVerificationError) refused = err.reason;
}

console.log(
  JSON.stringify({
    reference: created.paymentLinkReference,
    status: details.paymentLink.status,
    listed: listed.some((l) => l.paymentLinkReference === created.paymentLinkReference),
    notFound,
    invalidFields,
    signature: message.hmacSignature,
    first: first.duplicate,
    second: second.duplicate,
    refused,
  }),
);
