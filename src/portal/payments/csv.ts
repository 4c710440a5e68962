import { paymentState, type PaymentExportRow } from '../../payments/service.js';
import { answersLine } from '../../paymentLinks/shopper.js';
import { INVISIBLE_CHARACTERS } from '../../text.js';

// The payments CSV export (§The portal): one line per payment, written as the rows are read, so the
// export of a million payments holds one batch in memory. RFC 4180 quoting; amounts in the
// currency's major units with a point; times in UTC (ISO 8601).

const CSV_COLUMNS = [
  'payfacReference',
  'createdAt',
  'status',
  'amount',
  'currency',
  'capturedAmount',
  'refundedAmount',
  'paymentMethod',
  'cardSummary',
  'threeDSecure',
  'paidThrough',
  'paymentLinkReference',
  'checkoutReference',
  'merchantReference',
  'refusalReason',
  // The answers to a link's custom fields in one cell, `key=value; key=value` (docs/portal.md, Custom
  // fields): the keys differ from link to link, so a column per key would change with every export.
  'customFields',
] as const;

/**
 * What a cell may not start with: the signs a spreadsheet runs as a formula (= + - @), their
 * fullwidth and small forms (some programs read them as the ASCII ones), and anything a program may
 * skip before such a sign: white space of any kind (tab, line feed, carriage return, space, no-break
 * space...), the invisible characters of src/text.ts (zero-width space, joiners, byte order mark, soft
 * hyphen, direction marks such as U+061C, the combining grapheme joiner U+034F, fillers, the braille
 * blank U+2800), and a combining mark with no letter before it. By class rather than by list, so a
 * mark a list would forget is covered.
 */
const FORMULA_START = new RegExp(String.raw`^[=+\-@＝＋－＠﹢﹣﹦﹫−\s\p{M}${INVISIBLE_CHARACTERS}]`, 'u');

/**
 * One cell. A text that a spreadsheet would run as a formula (FORMULA_START) is kept as text by a
 * leading apostrophe: a reference that came from a shop's own system must never run in the
 * merchant's spreadsheet.
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Minor units as major units with a point: 12345 → "123.45". */
function majorUnits(minor: number): string {
  const cents = minor % 100;
  return `${(minor - cents) / 100}.${String(cents).padStart(2, '0')}`;
}

function line(p: PaymentExportRow): string {
  const through = p.paymentLinkReference ? 'link' : p.checkoutReference ? 'checkout' : 'savedCard';
  return [
    p.payfacReference,
    p.createdAt.toISOString(),
    paymentState(p),
    majorUnits(p.amount),
    p.currency,
    majorUnits(p.capturedAmount),
    majorUnits(p.refundedAmount),
    p.paymentMethod,
    p.cardSummary,
    p.threeDAuthenticated,
    through,
    p.paymentLinkReference,
    p.checkoutReference,
    p.merchantReference,
    p.success ? null : p.reason,
    p.customFieldAnswers ? answersLine(p.customFieldAnswers) : null,
  ]
    .map(csvCell)
    .join(',');
}

/** The export's text in chunks of lines: the header, then the payments as they are read. */
export async function* csvLines(payments: AsyncIterable<PaymentExportRow>, linesPerChunk = 500): AsyncGenerator<string> {
  // A byte order mark, so that spreadsheet programs read the file as UTF-8.
  let chunk = `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
  let n = 0;
  for await (const p of payments) {
    chunk += `${line(p)}\r\n`;
    if (++n % linesPerChunk === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
