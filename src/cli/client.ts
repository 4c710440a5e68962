import { InvalidArgumentError, type Command } from 'commander';
import { Paylinks, PaylinksApiError, PaylinksError } from '@paylinks/sdk';

// What every client command shares: where the service is and the key, the table and --json output,
// and how an error is printed and what the command exits with. The commands themselves are in
// links.ts, payments.ts, webhooks.ts and listen.ts, all through @paylinks/sdk against a running service, so the
// CLI exercises the same client merchants use.

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface ClientFlags {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export class UsageError extends Error {}

/** Where the service is, as the command was told. */
export function baseUrlOf(flags: ClientFlags): string {
  // src/config.ts is the one place that reads process.env for the service's own configuration; these
  // two variables configure this command's client of a (possibly remote) service, not the service,
  // so they are read here, where they are used.
  return flags.baseUrl ?? process.env.PAYLINKS_BASE_URL ?? DEFAULT_BASE_URL;
}

export function client(flags: ClientFlags): Paylinks {
  const baseUrl = baseUrlOf(flags);
  const apiKey = flags.apiKey ?? process.env.PAYLINKS_API_KEY;
  if (!apiKey) throw new UsageError('an API key is needed: --api-key or PAYLINKS_API_KEY');
  return new Paylinks({ baseUrl, apiKey });
}

/**
 * Columns padded to their widest cell; the last column is not padded. A cell with line breaks (a
 * link's completion message) goes on as many lines, under its own column, the row's other cells
 * blank on them: the table keeps its columns.
 */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string[] {
  const cells = [headers, ...rows.flatMap((r) => linesOf(r.map((c) => (c === null || c === undefined ? '-' : String(c)))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** A row whose cells may hold line breaks, as rows of one line each. */
function linesOf(row: string[]): string[][] {
  const split = row.map((c) => c.split(/\r\n|\r|\n/));
  const height = Math.max(1, ...split.map((lines) => lines.length));
  return Array.from({ length: height }, (_, i) => split.map((lines) => lines[i] ?? ''));
}

type Cell = string | number | null | undefined;

/**
 * One object as FIELD and VALUE rows: a field named by its key shows the object's value as it is
 * (true and false as words), a [name, value] pair shows a value worded otherwise.
 */
export function fieldTable<T extends object>(o: T, fields: readonly ((keyof T & string) | readonly [string, Cell])[]): string[] {
  const cell = (v: unknown): Cell => (typeof v === 'boolean' ? String(v) : (v as Cell));
  return table(
    ['FIELD', 'VALUE'],
    fields.map((f) => (typeof f === 'string' ? [f, cell(o[f])] : [f[0], f[1]])),
  );
}

export function emit(flags: ClientFlags, body: object, human: () => string[]): void {
  if (flags.json) out(JSON.stringify(body));
  else for (const l of human()) out(l);
}

/**
 * Runs an action. An error the service answered is printed with its code and every failing field, and
 * exits 1; a network failure exits 1 too; a mistake in the command itself (a missing key, a bad
 * option) exits 2, like the option errors of the parser.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (!(err instanceof PaylinksError) && !(err instanceof UsageError)) throw err;
      process.stderr.write(`paylinks: ${err.message}\n`);
      if (err instanceof PaylinksApiError) for (const e of err.errors) process.stderr.write(`  ${e.field}: ${e.code} ${e.message}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    }
  };
}

export const int =
  (name: string) =>
  (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer`);
    return Number(value);
  };

/** The options every operation takes: where the service is, the key, and --json. */
export function withClient(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', `the service's base address (env PAYLINKS_BASE_URL; default ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'the merchant API key (env PAYLINKS_API_KEY)')
    .option('--json', 'print the response as one JSON object');
}

export const paging = (cmd: Command): Command =>
  cmd.option('--page <n>', 'page number, from 0', int('--page')).option('--page-size <n>', 'page size, 1 to 100', int('--page-size'));

export interface PageFlags {
  page?: number;
  pageSize?: number;
}

/** The fields that were given, in their order: an option left out is not sent at all, as the SDK's optional fields expect. */
export function given<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** The page a list command was asked for, as the SDK's list calls take it. */
export const pageOf = (o: PageFlags): PageFlags => given({ page: o.page, pageSize: o.pageSize });

type Options = (cmd: Command) => Command;
const none: Options = (cmd) => cmd;

/**
 * A `list` command: the client's options and --page/--page-size, then its own `options`. It prints
 * what `list` answers as one JSON object (--json), or as a table of `columns`, a row an entry, with
 * "N shown of M" under it (and `note`, say the units of its amounts).
 */
export function listCommand<E, F extends object = object>(
  cmd: Command,
  spec: {
    options?: Options;
    columns: string[];
    row: (e: E) => Cell[];
    note?: string;
    list: (o: ClientFlags & PageFlags & F) => Promise<{ data: E[]; totalCount: number }>;
  },
): void {
  (spec.options ?? none)(withClient(paging(cmd))).action(
    action(async (o: ClientFlags & PageFlags & F) => {
      const r = await spec.list(o);
      emit(o, r, () => [...table(spec.columns, r.data.map(spec.row)), `${r.data.length} shown of ${r.totalCount}${spec.note ? ` ${spec.note}` : ''}`]);
    }),
  );
}

/**
 * A command on one thing named by its id (`argument`: the name and its help): the client's options,
 * the argument, then its own `options`. It prints what `run` answers as one JSON object (--json; the
 * answer, or `json` of it), or as `lines`.
 */
export function idCommand<R extends object, F extends object = object>(
  cmd: Command,
  argument: readonly [name: string, description: string],
  spec: {
    options?: Options;
    run: (id: string, o: ClientFlags & F) => Promise<R>;
    json?: (r: R, id: string) => object;
    lines: (r: R, id: string, o: ClientFlags & F) => string[];
  },
): void {
  (spec.options ?? none)(withClient(cmd).argument(...argument)).action(
    action(async (id: string, o: ClientFlags & F) => {
      const r = await spec.run(id, o);
      emit(o, spec.json ? spec.json(r, id) : r, () => spec.lines(r, id, o));
    }),
  );
}
