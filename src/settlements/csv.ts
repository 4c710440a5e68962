import type { SettlementDetails } from './service.js';

// A batch as CSV (docs/api.md, Settlements): one row per line, then a Total row whose amount, fee and net
// are the batch's grossAmount, feeAmount and netAmount. Amounts are minor units as in the API, so the
// file's totals are the API's to the unit. Every cell is a reference, a code, a time or a number that the
// service made, none a text a shop wrote, so none can start a spreadsheet formula; RFC 4180 line ends.

const COLUMNS = ['settlementId', 'currency', 'cutoffAt', 'type', 'payfacReference', 'originalPayfacReference', 'bookedAt', 'amount', 'fee', 'net'];

export function settlementCsv(s: SettlementDetails): string {
  const rows = [
    COLUMNS,
    ...s.lines.map((l) => [
      s.settlementId,
      s.currency,
      s.cutoffAt,
      l.type,
      l.payfacReference,
      l.originalPayfacReference,
      l.bookedAt,
      l.amount,
      l.fee,
      l.amount - l.fee,
    ]),
    [s.settlementId, s.currency, s.cutoffAt, 'Total', '', '', '', s.grossAmount, s.feeAmount, s.netAmount],
  ];
  // A byte order mark, so that spreadsheet programs read the file as UTF-8 (as the payments export).
  return `\uFEFF${rows.map((r) => r.join(',')).join('\r\n')}\r\n`;
}

export const settlementCsvName = (s: { settlementId: string; cutoffAt: string }): string => `settlement-${s.cutoffAt.slice(0, 10)}-${s.settlementId}.csv`;
