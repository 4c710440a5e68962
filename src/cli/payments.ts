import type { Command } from 'commander';
import { action, client, emit, int, withClient, type ClientFlags } from './client.js';

// `paylinks payments`: changes to a payment already made, through @paylinks/sdk.

export function registerPaymentCommands(program: Command): void {
  const payments = program.command('payments').alias('payment').description('changes to payments already made');

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
      action(async (payfacReference: string, o: ClientFlags & { amount: number; currency: string; reference: string }) => {
        const r = await client(o).modifications.adjust({ reference: o.reference, payfacReference, amount: o.amount, currency: o.currency });
        emit(o, r, () => [`status           ${r.status}`, `payfacReference  ${r.payfacReference}`]);
      }),
    );
}
