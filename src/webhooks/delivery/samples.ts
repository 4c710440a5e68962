/**
 * The most recent measurements of one kind, kept in a ring of fixed size, with their percentiles:
 * the worker's slot turnarounds for its stop log line and the benchmark.
 */
export class RecentSamples {
  private readonly values: number[] = [];
  private next = 0;

  constructor(private readonly size: number) {}

  add(value: number): void {
    if (this.values.length < this.size) this.values.push(value);
    else this.values[this.next] = value;
    this.next = (this.next + 1) % this.size;
  }

  /** How many are kept, and their median and 99th percentile rounded to the microsecond (null when none). */
  summary(): { n: number; p50: number | null; p99: number | null } {
    const sorted = [...this.values].sort((a, b) => a - b);
    const at = (q: number): number | null =>
      sorted.length === 0 ? null : Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) * 1000) / 1000;
    return { n: sorted.length, p50: at(0.5), p99: at(0.99) };
  }
}
