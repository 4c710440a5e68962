import { describe, expect, it } from 'vitest';
import { BatchLoader, BatchWriter } from '../../src/db/batch.js';

// Issue 8: lookups asked for in one event-loop turn share one query; none joins a query already sent
// (§Authentication: a key revoked before a request arrived must not be served from an earlier read).

function recordingLoader(table: Map<string, number>, opts: { maxBatch?: number } = {}) {
  const calls: string[][] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const loader = new BatchLoader<string, number>(async (keys) => {
    calls.push([...keys]);
    // Read when the query is sent; the answer may arrive later (the gate).
    const read = new Map(keys.flatMap((k) => (table.has(k) ? [[k, table.get(k) as number] as const] : [])));
    if (gate) await gate;
    return read;
  }, opts);
  return {
    loader,
    calls,
    hold() {
      gate = new Promise((r) => (release = r));
    },
    open() {
      gate = undefined;
      release?.();
    },
  };
}

describe('BatchLoader (docs/performance.md)', () => {
  it('answers the lookups of one turn with one load of the distinct keys, unknown keys as undefined', async () => {
    const { loader, calls } = recordingLoader(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    const got = await Promise.all([loader.get('a'), loader.get('b'), loader.get('a'), loader.get('zz')]);
    expect(got).toEqual([1, 2, 1, undefined]);
    expect(calls).toEqual([['a', 'b', 'zz']]);
  });

  it('never lets a lookup join a load that was already sent: it sees a change made before it asked', async () => {
    const table = new Map([['k', 1]]);
    const r = recordingLoader(table);
    r.hold();
    const first = r.loader.get('k');
    await new Promise((res) => setImmediate(res));
    expect(r.calls).toHaveLength(1); // the first load is in flight
    table.set('k', 2); // e.g. a revocation committed now
    const second = r.loader.get('k');
    r.open();
    expect(await first).toBe(1);
    expect(await second).toBe(2);
    expect(r.calls).toEqual([['k'], ['k']]);
  });

  it('splits more than maxBatch keys into several loads', async () => {
    const table = new Map(Array.from({ length: 10 }, (_, i) => [`k${i}`, i] as const));
    const { loader, calls } = recordingLoader(table, { maxBatch: 4 });
    const got = await Promise.all([...table.keys()].map((k) => loader.get(k)));
    expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(calls.map((c) => c.length)).toEqual([4, 4, 2]);
  });

  it('asks again key by key when a load fails for a key of its own: only that key fails', async () => {
    const calls: string[][] = [];
    const loader = new BatchLoader<string, string>(async (keys) => {
      calls.push([...keys]);
      if (keys.includes('bad\u0000')) throw Object.assign(new Error('invalid byte sequence'), { code: '22021' });
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    });
    const results = await Promise.allSettled([loader.get('a'), loader.get('bad\u0000'), loader.get('b'), loader.get('a')]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual(['A', 'rejected', 'B', 'A']);
    expect(calls[0]).toEqual(['a', 'bad\u0000', 'b']);
    expect(calls.slice(1).sort()).toEqual([['a'], ['b'], ['bad\u0000']]);
  });

  it('rejects every lookup of a load that failed with a final error (the connection), and the next turn loads afresh', async () => {
    let fail = true;
    const loader = new BatchLoader<string, string>(async (keys) => {
      if (fail) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    });
    const results = await Promise.allSettled([loader.get('a'), loader.get('b')]);
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await loader.get('a')).toBe('A');
  });
});

describe('BatchWriter (docs/performance.md)', () => {
  function recordingWriter(opts: { isFinal?: (err: unknown) => boolean; maxBatch?: number } = {}) {
    const many: string[][] = [];
    const one: string[] = [];
    const stored: string[] = [];
    const writer = new BatchWriter<string>(
      async (items) => {
        many.push([...items]);
        if (items.includes('bad')) throw new Error('check constraint');
        if (items.includes('down')) throw new Error('connection lost');
        stored.push(...items);
      },
      async (item) => {
        one.push(item);
        if (item === 'bad' || item === 'down') throw new Error(`refused ${item}`);
        stored.push(item);
      },
      opts,
    );
    return { writer, many, one, stored };
  }

  it('writes the items of one turn with one statement; a lone item goes alone', async () => {
    const r = recordingWriter();
    await Promise.all(['a', 'b', 'c'].map((x) => r.writer.write(x)));
    await r.writer.write('d');
    expect(r.many).toEqual([['a', 'b', 'c']]);
    expect(r.one).toEqual(['d']);
    expect(r.stored).toEqual(['a', 'b', 'c', 'd']);
  });

  it('writes a failed batch again item by item: the bad item fails alone, the others are stored', async () => {
    const r = recordingWriter();
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((x) => r.writer.write(x)));
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.stored.sort()).toEqual(['a', 'c']);
  });

  it('after a final error (the connection failed) rejects the whole batch without writing again', async () => {
    const r = recordingWriter({ isFinal: (err) => (err as Error).message === 'connection lost' });
    const results = await Promise.allSettled(['a', 'down', 'c'].map((x) => r.writer.write(x)));
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(r.one).toEqual([]);
    expect(r.stored).toEqual([]);
  });

  it('settles each item by the refusals the statement returns, without writing any item again', async () => {
    const one: string[] = [];
    const writer = new BatchWriter<string>(
      async (items) => items.map((x) => (x.startsWith('foreign') ? new Error(`refused ${x}`) : undefined)),
      async (item) => {
        one.push(item);
      },
    );
    const results = await Promise.allSettled(['a', 'foreign-1', 'b', 'foreign-2'].map((x) => writer.write(x)));
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(one).toEqual([]);
  });

  it('splits more than maxBatch items into several statements', async () => {
    const r = recordingWriter({ maxBatch: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((x) => r.writer.write(x)));
    expect(r.many).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(r.one).toEqual(['e']);
  });
});
