import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Settlement } from '@paylinks/sdk';
import { action, client, emit, fieldTable, idCommand, listCommand, pageOf, table, withClient, type ClientFlags } from './client.js';

// `paylinks settlements`: the batches the acquirer pays out (docs/api.md, Settlements), through @paylinks/sdk.

export function registerSettlementCommands(program: Command): void {
  const settlements = program
    .command('settlements')
    .alias('settlement')
    .description('settlement batches: what was paid out per currency and cut-off, with fees');

  listCommand(settlements.command('list').description('list settlement batches, newest first'), {
    columns: ['SETTLEMENT', 'CURRENCY', 'CUT-OFF', 'LINES', 'GROSS', 'FEES', 'NET'],
    row: (s: Settlement) => [s.settlementId, s.currency, s.cutoffAt, s.lineCount, s.grossAmount, s.feeAmount, s.netAmount],
    note: '(amounts in minor units)',
    list: async (o) => {
      const { data, totalCount } = await client(o).settlements.list(pageOf(o));
      return { data, totalCount };
    },
  });

  idCommand(
    settlements.command('get').description('a settlement batch with every line: each capture and refund, its amount and fee'),
    ['<settlementId>', 'settlementId (stl_…)'],
    {
      run: (settlementId, o) => client(o).settlements.get(settlementId),
      lines: ({ settlement: s }) => [
        ...fieldTable(s, ['settlementId', 'currency', 'cutoffAt', 'grossAmount', 'feeAmount', 'netAmount', 'lineCount']),
        '',
        ...table(
          ['TYPE', 'PAYFAC REFERENCE', 'PAYMENT', 'BOOKED', 'AMOUNT', 'FEE'],
          s.lines.map((l) => [l.type, l.payfacReference, l.originalPayfacReference, l.bookedAt, l.amount, l.fee]),
        ),
      ],
    },
  );

  withClient(settlements.command('csv').description('a settlement batch as CSV: a row per line, then a Total row (amounts in minor units)'))
    .argument('<settlementId>', 'settlementId (stl_…)')
    .option('--out <file>', 'write it to this file instead of printing it')
    .action(
      action(async (settlementId: string, o: ClientFlags & { out?: string }) => {
        const csv = await client(o).settlements.csv(settlementId);
        if (o.out !== undefined) writeFileSync(o.out, csv);
        else process.stdout.write(csv);
      }),
    );

  withClient(
    settlements
      .command('run')
      .description(
        'sandbox: settle now everything captured or refunded and not settled yet, instead of waiting for the daily cut-off; prints the batches made',
      ),
  ).action(
    action(async (o: ClientFlags) => {
      const r = await client(o).sandbox.settle();
      emit(o, r, () =>
        r.data.length === 0
          ? ['nothing to settle']
          : table(
              ['SETTLEMENT', 'CURRENCY', 'LINES', 'GROSS', 'FEES', 'NET'],
              r.data.map((s) => [s.settlementId, s.currency, s.lineCount, s.grossAmount, s.feeAmount, s.netAmount]),
            ),
      );
    }),
  );
}
