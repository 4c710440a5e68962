import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, expect } from 'vitest';

// What each test file ran, for the suite's own accounting (test/helpers/suiteReport.ts reads it at the
// end of a run): its tests, their assertions, and every distinct SQL statement of the service's own
// code that succeeded, on PostgreSQL or on PGlite. Both go through pg's Pool and Client, so one hook
// sees both; PGlite's own listen() and exec() are hooked too.
//
// A statement is the service's when a file under src/ sent it: the direct caller of a pool's or a
// client's query (a pool's own call of its client is the pool's statement, and so is the embedded
// database's pool query's; on PGlite, whose one
// connection passes from query to query, whatever released it may still be on the stack), or anywhere
// on the stack of PGlite's exec. What the tests themselves send (a template database's CREATE
// DATABASE, a row a test breaks on purpose) is kept apart. A statement is kept normalised as pg_stat_statements does it: whitespace collapsed, and any
// number or quoted text written into it replaced by `?` (the service's values are $n parameters
// already; a row limit written into the text, src/db/database.ts limitSql, is one statement).
//
// Run by vitest before each test file (setupFiles); it records only when the run gives it a folder
// (PAYLINKS_TEST_RECORD_DIR, set by test/helpers/globalSetup.ts).

const dir = process.env.PAYLINKS_TEST_RECORD_DIR;

/** Whitespace collapsed, literals replaced by `?`, as pg_stat_statements normalises a statement. */
export function normaliseStatement(text: string): string {
  return text
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/(?<![$\w.])\d+(?:\.\d+)?(?![\w])/g, '?')
    .replace(/\s+/g, ' ')
    .trim();
}

interface Recorder {
  /** Statements of the service's code that succeeded in this file. */
  service: Set<string>;
  /** Statements sent by the tests themselves. */
  other: Set<string>;
}

const KEY = Symbol.for('paylinks.test.record');
type WithRecorder = typeof globalThis & { [KEY]?: Recorder };

function textOf(config: unknown): string | null {
  if (typeof config === 'string') return config;
  if (config !== null && typeof config === 'object' && 'text' in config && typeof config.text === 'string') return config.text;
  return null;
}

const SERVICE_FRAME = /\/src\/[^\n]*\.tsx?:\d+/;

/** Who sent it: the service, the tests, or a pool passing its own statement to its client. */
function senderOf(anywhere: boolean): 'service' | 'other' | 'pool' {
  // [0] is "Error", [1] this function, [2] the hook, [3] the caller.
  const frames = (new Error().stack ?? '').split('\n').slice(3);
  if (anywhere) return frames.some((f) => SERVICE_FRAME.test(f)) ? 'service' : 'other';
  // The embedded database's pool query (src/db/database.ts) only passes its caller's statement on.
  // Frames without a file (Node's own, `async Promise.all`) are passed over too.
  const caller = frames.find((f) => !/\bpoolQuery\b/.test(f) && /[( ](?:file:\/\/)?\/\S+:\d+:\d+\)?$/.test(f)) ?? '';
  if (caller.includes('/node_modules/pg-pool/')) return 'pool';
  return SERVICE_FRAME.test(caller) ? 'service' : 'other';
}

type Method = (...args: unknown[]) => unknown;

function hook(proto: Record<string, unknown>, name: string, recorder: Recorder, anywhere: boolean): void {
  const original = proto[name] as Method;
  // A text the service has sent is the service's wherever it comes from again: no stack to read.
  const known = new Set<string>();
  proto[name] = function (this: unknown, ...args: unknown[]): unknown {
    const text = textOf(args[0]);
    const sender = text === null ? 'pool' : known.has(text) ? 'service' : senderOf(anywhere);
    if (sender === 'service' && text !== null) known.add(text);
    const result = original.apply(this, args);
    if (text !== null && sender !== 'pool') {
      const service = sender === 'service';
      const keep = (): void => void (service ? recorder.service : recorder.other).add(normaliseStatement(text));
      // Kept once it succeeded; a callback or a submittable query is kept as it is sent.
      if (result instanceof Promise) result.then(keep, () => undefined);
      else keep();
    }
    return result;
  };
}

function install(): Recorder {
  const g = globalThis as WithRecorder;
  const existing = g[KEY];
  if (existing) return existing;
  const recorder: Recorder = { service: new Set(), other: new Set() };
  g[KEY] = recorder;
  const previousLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = Math.max(previousLimit, 30);
  hook(pg.Pool.prototype as unknown as Record<string, unknown>, 'query', recorder, false);
  hook(pg.Client.prototype as unknown as Record<string, unknown>, 'query', recorder, false);
  hook(PGlite.prototype as unknown as Record<string, unknown>, 'exec', recorder, true);
  // PGlite's listen() runs `LISTEN <channel>` through exec a turn later, when no caller is on the
  // stack any more: it is kept as that statement, sent by whoever called listen().
  const pglite = PGlite.prototype as unknown as { listen: (channel: string, ...rest: unknown[]) => Promise<unknown> };
  const listen = pglite.listen;
  pglite.listen = function (this: unknown, channel: string, ...rest: unknown[]): Promise<unknown> {
    const sender = senderOf(false);
    const result = listen.call(this, channel, ...rest);
    result.then(
      () => void (sender === 'service' ? recorder.service : recorder.other).add(normaliseStatement(`LISTEN ${channel}`)),
      () => undefined,
    );
    return result;
  };
  return recorder;
}

if (dir) {
  const recorder = install();
  let tests = 0;
  let assertions = 0;
  afterEach(() => {
    tests += 1;
    assertions += expect.getState().assertionCalls;
  });
  afterAll(() => {
    const file = expect.getState().testPath ?? 'unknown';
    const line = JSON.stringify({
      file,
      project: process.env.TEST_DB ?? 'unit',
      tests,
      assertions,
      statements: [...recorder.service],
      other: [...recorder.other].filter((s) => !recorder.service.has(s)),
    });
    recorder.service.clear();
    recorder.other.clear();
    appendFileSync(join(dir, `${process.pid}.jsonl`), `${line}\n`);
  });
}
