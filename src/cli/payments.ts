import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { RefundReason } from '@paylinks/sdk';
import { action, client, emit, int, withClient, type ClientFlags } from './client.js';

// `paylinks payments`: changes to a payment already made, through @paylinks/sdk. Each is accepted at
// once as Received; its outcome arrives later as a webhook (docs/api.md, Modifications).

const REFUND_REASONS: readonly RefundReason[] = ['OTHER', 'RETURN', 'DUPLICATE', 'FRAUD', 'CUSTOMER REQUEST'];

function refundReason(value: string): RefundReason {
  const found = REFUND_REASONS.find((r) => r === value.toUpperCase());
  if (!found) throw new InvalidArgumentError(`use one of ${REFUND_REASONS.map((r) => `"${r}"`).join(', ')}`);
  return found;
}

type Received = { status: string; payfacReference: string };

const received = (o: ClientFlags, r: Received): void => emit(o, r, () => [`status           ${r.status}`, `payfacReference  ${r.payfacReference}`]);

type AmountFlags = ClientFlags & { amount: number; currency: string; reference: string };

export function registerPaymentCommands(program: Command): void {
  const payments = program.command('payments').alias('payment').description('changes to payments already made');

  withClient(
    payments
      .command('capture')
      .description('capture a payment authorised with manual capture or as a pre-authorisation, in full or in part; the outcome arrives as a Capture webhook'),
  )
    .argument('<payfacReference>', "the payment's payfacReference")
    .requiredOption('--amount <minor>', 'the amount to capture, in minor units', int('--amount'))
    .requiredOption('--currency <code>', "the payment's currency, e.g. EUR")
    .requiredOption('--reference <text>', 'your reference for this capture')
    .action(
      action(async (payfacReference: string, o: AmountFlags) => {
        received(o, await client(o).modifications.capture({ reference: o.reference, payfacReference, amount: o.amount, currency: o.currency }));
      }),
    );

  withClient(payments.command('refund').description('refund a captured payment, in full or in part; the outcome arrives as a Refund webhook'))
    .argument('<payfacReference>', "the payment's payfacReference")
    .requiredOption('--amount <minor>', 'the amount to refund, in minor units', int('--amount'))
    .requiredOption('--currency <code>', "the payment's currency, e.g. EUR")
    .requiredOption('--reference <text>', 'your reference for this refund')
    .option('--reason <reason>', `why: ${REFUND_REASONS.join(', ')}`, refundReason)
    .action(
      action(async (payfacReference: string, o: AmountFlags & { reason?: RefundReason }) => {
        const params = { reference: o.reference, payfacReference, amount: o.amount, currency: o.currency };
        received(o, await client(o).modifications.refund(o.reason === undefined ? params : { ...params, refundReason: o.reason }));
      }),
    );

  withClient(
    payments
      .command('reverse')
      .description('cancel a payment nothing was captured from, or refund what is left of it; the outcome arrives as a Refund webhook'),
  )
    .argument('<payfacReference>', "the payment's payfacReference")
    .requiredOption('--reference <text>', 'your reference for this reversal')
    .action(
      action(async (payfacReference: string, o: ClientFlags & { reference: string }) => {
        received(o, await client(o).modifications.reverse({ reference: o.reference, payfacReference }));
      }),
    );

  withClient(
    payments
      .command('adjust')
      .description(
        'set a new authorised amount, higher or lower, on a payment with manual capture or a pre-authorisation not yet captured in full; ' +
          'the outcome arrives as an Adjustment webhook',
      ),
  )
    .argument('<payfacReference>', "the payment's payfacReference")
    .requiredOption('--amount <minor>', 'the new authorised amount in minor units', int('--amount'))
    .requiredOption('--currency <code>', "the payment's currency, e.g. EUR")
    .requiredOption('--reference <text>', 'your reference for this adjustment')
    .action(
      action(async (payfacReference: string, o: AmountFlags) => {
        received(o, await client(o).modifications.adjust({ reference: o.reference, payfacReference, amount: o.amount, currency: o.currency }));
      }),
    );
}
