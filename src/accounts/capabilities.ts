// What an API key may do, and the operator's account errors: apart from the accounts service, so
// that the CLI can check a --capability and report an error without loading the service and its
// database code (`paylinks --help` and the API commands start without them).

export const CAPABILITIES = ['PaymentLinks', 'TokenizeLinks', 'HostedCheckout', 'Webhooks'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(v: string): v is Capability {
  return (CAPABILITIES as readonly string[]).includes(v);
}

/** An operator's command that cannot be done as asked (the CLI prints its message and exits 1). */
export class AccountError extends Error {}
