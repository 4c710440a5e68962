import { describe, expect, it } from 'vitest';
import { csvCell } from '../../src/portal/payments/csv.js';

// The payments export's cells (docs/portal.md, Download as CSV): a text that a spreadsheet could run as
// a formula is kept as text by a leading apostrophe. Spreadsheet programs skip leading white space
// and invisible characters, and some read fullwidth signs as their ASCII forms, so a cell starting
// with any of those is kept as text too.

describe('CSV cells a spreadsheet will not run', () => {
  it('neutralises the ASCII formula signs, tab and carriage return', () => {
    for (const v of ['=1+1', '+1', '-1+2', '@SUM(A1)', '\t=1', '\r=1']) expect(csvCell(v)).toMatch(/^"?'/);
  });

  it('neutralises a line feed, a space, a fullwidth sign, or an invisible character before a sign', () => {
    const cells = [
      '\n=1+1',
      ' =1+1',
      '\u00a0=1+1',
      '\uff1dHYPERLINK("http://x")',
      '\uff0b1',
      '\uff0d1',
      '\uff20SUM(A1)',
      '\ufe66SUM(A1)',
      '\u200b=1+1',
      '\u200c=1',
      '\u200d+1',
      '\u2060-1',
      '\ufeff@SUM(A1)',
    ];
    for (const v of cells) {
      const cell = csvCell(v);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted, JSON.stringify(v)).toBe(`'${v}`);
    }
  });

  it('leaves ordinary text, numbers and empty cells as they are', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('order 17 = paid')).toBe('order 17 = paid');
    expect(csvCell('Tón-list @ Hörpu')).toBe('Tón-list @ Hörpu');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell('')).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
  });
});
