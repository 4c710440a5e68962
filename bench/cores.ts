import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// BENCH_POSTGRES_CPUS=<list> (taskset's form, e.g. "1" or "2-3"): PostgreSQL's processes run on those
// CPUs alone, and this process, with every process it starts (serve, the workers, the receiver, the
// peer), on the others this process may use (or on BENCH_CPUS). It stands for a database on cores of
// its own, as with a managed PostgreSQL, on one machine. It needs `taskset` (util-linux) and the right
// to change the affinity of PostgreSQL's processes (root, or the user they run as); the bench stops
// with an error when either is missing. It moves every process named `postgres` on the machine (run it
// where the bench's cluster is the only one). New backends inherit the postmaster's CPUs. When the
// bench ends, or is stopped with Ctrl-C or SIGTERM, each PostgreSQL process gets back the CPUs it had,
// and a backend started meanwhile those the postmaster had. A bench killed with SIGKILL cannot do
// that: `taskset -a -p -c <cpus> <pid>` of the postmaster, and of each backend, puts them back by hand.

/** The CPUs a process may run on, from /proc (Cpus_allowed_list, taskset's form). */
function cpusOf(pid: string): string | undefined {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** The pids of the machine's PostgreSQL processes, and which of them is a postmaster (its parent is not postgres). */
function postgresProcesses(): { pid: string; parent: string }[] {
  const found: { pid: string; parent: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(') ')) !== 'postgres') continue;
      found.push({ pid: name, parent: stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1] ?? '' });
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

function setCpus(pid: string, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, pid], { stdio: 'ignore' });
}

/** The CPUs of a list in taskset's form ("1", "0,2", "2-3"); an error for anything else. */
export function cpuList(list: string, name: string): number[] {
  const cpus = new Set<number>();
  for (const part of list.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`${name}: "${list}" is not a list of CPUs such as "1", "0,2" or "2-3"`);
    const [a, b] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (b < a) throw new Error(`${name}: "${part}" is an empty range`);
    for (let c = a; c <= b; c++) cpus.add(c);
  }
  return [...cpus].sort((x, y) => x - y);
}

/**
 * Splits the CPUs between PostgreSQL and the bench when BENCH_POSTGRES_CPUS is set; returns a line
 * saying how (for the bench's log), or null when nothing was changed.
 */
export function splitCores(): string | null {
  const wanted = process.env.BENCH_POSTGRES_CPUS;
  if (!wanted) {
    if (process.env.BENCH_CPUS) throw new Error('BENCH_CPUS is used with BENCH_POSTGRES_CPUS only');
    return null;
  }
  const mineNow = cpuList(cpusOf(String(process.pid)) ?? '', "this process's CPUs");
  const pg = cpuList(wanted, 'BENCH_POSTGRES_CPUS');
  const unknown = pg.filter((c) => !mineNow.includes(c));
  if (unknown.length > 0) throw new Error(`BENCH_POSTGRES_CPUS: CPU ${unknown.join(', ')} is not among this process's CPUs (${mineNow.join(',')})`);
  const mine = process.env.BENCH_CPUS ? cpuList(process.env.BENCH_CPUS, 'BENCH_CPUS') : mineNow.filter((c) => !pg.includes(c));
  if (mine.length === 0) throw new Error(`BENCH_POSTGRES_CPUS: "${wanted}" leaves no CPU for the bench's own processes`);
  const processes = postgresProcesses();
  const pids = new Set(processes.map((p) => p.pid));
  const postmasters = processes.filter((p) => !pids.has(p.parent));
  if (postmasters.length === 0)
    throw new Error('BENCH_POSTGRES_CPUS: no PostgreSQL process on this machine to pin (a database elsewhere has cores of its own)');
  // What each had, to give it back.
  const before = new Map(processes.map((p) => [p.pid, cpusOf(p.pid)] as const));
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    for (const p of postgresProcesses()) {
      const home = before.get(p.pid) ?? before.get(p.parent) ?? before.get(postmasters[0]?.pid ?? '');
      if (home === undefined) continue;
      try {
        setCpus(p.pid, home);
      } catch {
        // It ended meanwhile.
      }
    }
  };
  process.once('exit', restore);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)
    process.once(signal, () => {
      restore();
      process.exit(code);
    });
  for (const p of postmasters) {
    try {
      setCpus(p.pid, pg.join(','));
    } catch (err) {
      restore();
      throw new Error(
        `BENCH_POSTGRES_CPUS: could not move PostgreSQL's process ${p.pid} (taskset, and the right to move it, are needed): ${(err as Error).message}`,
      );
    }
    if (cpuList(cpusOf(p.pid) ?? '', 'pinned').join(',') !== pg.join(',')) {
      restore();
      throw new Error(`BENCH_POSTGRES_CPUS: PostgreSQL's process ${p.pid} did not move to CPUs ${pg.join(',')}`);
    }
  }
  for (const p of processes) {
    try {
      setCpus(p.pid, pg.join(','));
    } catch {
      // A backend that ended meanwhile.
    }
  }
  setCpus(String(process.pid), mine.join(','));
  return `PostgreSQL's ${processes.length} processes on CPUs ${pg.join(',')}, the bench's own on ${mine.join(',')}`;
}
