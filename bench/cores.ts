import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';

// BENCH_POSTGRES_CPUS=<list> (taskset's form, e.g. "1" or "2-3"): PostgreSQL's processes run on those
// CPUs alone, and this process, with every process it starts (serve, the workers, the receiver, the
// peer), on the others (or on BENCH_CPUS). It stands for a database on cores of its own, as with a
// managed PostgreSQL, on one machine. It needs `taskset` (util-linux) and the right to change the
// affinity of PostgreSQL's processes (root, or the user they run as). New backends inherit the
// postmaster's CPUs. When the bench ends, PostgreSQL's processes get every CPU again.

/** The pids of the machine's PostgreSQL processes (the postmaster and its children). */
function postgresPids(): string[] {
  const pids: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(') ')) === 'postgres') pids.push(name);
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids;
}

function setCpus(pid: string, cpus: string): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, pid], { stdio: 'ignore' });
  } catch {
    // A backend that ended meanwhile.
  }
}

/** The CPUs 0 to n-1 less those in `list` (taskset's form: "1", "0,2", "2-3"). */
function others(list: string, n: number): string {
  const taken = new Set<number>();
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) throw new Error(`BENCH_POSTGRES_CPUS: "${list}" is not a list of CPUs such as "1" or "2-3"`);
    for (let c = a; c <= (b ?? a); c++) taken.add(c);
  }
  const rest = [...Array(n).keys()].filter((c) => !taken.has(c));
  if (rest.length === 0) throw new Error(`BENCH_POSTGRES_CPUS: "${list}" leaves no CPU for the bench's own processes`);
  return rest.join(',');
}

/**
 * Splits the CPUs between PostgreSQL and the bench when BENCH_POSTGRES_CPUS is set; returns a line
 * saying how (for the bench's log), or null when nothing was changed.
 */
export function splitCores(): string | null {
  const pg = process.env.BENCH_POSTGRES_CPUS;
  if (!pg) return null;
  const all = `0-${availableParallelism() - 1}`;
  const mine = process.env.BENCH_CPUS ?? others(pg, availableParallelism());
  const pids = postgresPids();
  if (pids.length === 0) throw new Error('BENCH_POSTGRES_CPUS: no PostgreSQL process on this machine to pin (a database elsewhere has cores of its own)');
  for (const pid of pids) setCpus(pid, pg);
  setCpus(String(process.pid), mine);
  process.once('exit', () => {
    for (const pid of postgresPids()) setCpus(pid, all);
  });
  return `PostgreSQL's ${pids.length} processes on CPUs ${pg}, the bench's own on ${mine}`;
}
