import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics.js';
import type { Database } from '../../src/db/database.js';

// deploy/prometheus/alerts.yml (docs/production.md, "Alerts") is checked by Prometheus's own promtool
// where it is installed, and always against the metrics src/metrics.ts registers: a metric renamed
// there, or a label misspelt here, would leave an alert that never fires.

const FILE = join(import.meta.dirname, '../../deploy/prometheus/alerts.yml');

/** Every metric one process can expose, with the labels its series carry. */
async function registered(): Promise<Map<string, Set<string>>> {
  const pool = { totalCount: 2, idleCount: 1, waitingCount: 0 };
  const metrics = new Metrics({
    db: { pool } as unknown as Database,
    backlog: async () => ({ due: 0, oldestDueAt: null }),
    authorisations: async () => [{ currency: 'EUR', count: 1, amount: 100, oldest: new Date() }],
  });
  metrics.observeHttp('GET', '/healthz', 200, 0.001);
  metrics.attempt('delivered', 0.01);
  metrics.failedForGood(1);
  metrics.upkeepPass(0.1, 3, 1, new Date());
  const names = new Map<string, Set<string>>();
  for (const m of await metrics.registry.getMetricsAsJSON()) {
    const labels = new Set<string>();
    for (const v of m.values) for (const l of Object.keys(v.labels)) labels.add(l);
    names.set(m.name, labels);
    // A histogram's series: name_bucket (with le), name_count and name_sum.
    const values = m.values as { metricName?: string; labels: object }[];
    for (const v of values) if (v.metricName !== undefined) names.set(v.metricName, new Set([...labels, ...Object.keys(v.labels)]));
  }
  return names;
}

interface Rule {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function rules(): Rule[] {
  const doc = parse(readFileSync(FILE, 'utf8')) as { groups?: { name?: string; rules?: Rule[] }[] };
  expect(doc.groups?.length).toBeGreaterThan(0);
  return (doc.groups ?? []).flatMap((g) => g.rules ?? []);
}

/** Names of Prometheus's own series that a rule may use besides the service's metrics. */
const PROMETHEUS_SERIES = new Set(['up']);

describe('deploy/prometheus/alerts.yml', () => {
  it('passes promtool check rules (where promtool is installed)', (ctx) => {
    const run = spawnSync('promtool', ['check', 'rules', FILE], { encoding: 'utf8' });
    if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      ctx.skip('promtool is not installed (apt-get install prometheus); the YAML and metric names are still checked below');
      return;
    }
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  });

  it('fires as described in its unit tests (promtool test rules, where promtool is installed)', (ctx) => {
    const run = spawnSync('promtool', ['test', 'rules', join(import.meta.dirname, '../../deploy/prometheus/alerts.test.yml')], { encoding: 'utf8' });
    if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      ctx.skip('promtool is not installed (apt-get install prometheus)');
      return;
    }
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  });

  it('names only metrics and labels that src/metrics.ts registers', async () => {
    const known = await registered();
    const all = rules();
    expect(all.length).toBeGreaterThanOrEqual(5);
    const used = new Set<string>();
    for (const rule of all) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^Paylinks[A-Za-z]+$/);
      expect(rule.labels?.severity, rule.alert).toMatch(/^(critical|warning|info)$/);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      const expr = rule.expr ?? '';
      // Each selector: a series name, then optionally its {label matchers}.
      const selectors = [...expr.matchAll(/\b((?:paylinks_|up\b)[a-z0-9_]*)\s*(\{[^}]*\})?/g)];
      expect(selectors.length, `${rule.alert} names no metric`).toBeGreaterThan(0);
      for (const [, name = '', matchers] of selectors) {
        used.add(name);
        if (PROMETHEUS_SERIES.has(name)) continue;
        expect(known.has(name), `${rule.alert}: ${name} is not a metric of src/metrics.ts`).toBe(true);
        for (const [, label = ''] of (matchers ?? '').matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) {
          expect(known.get(name)?.has(label), `${rule.alert}: ${name} has no label ${label}`).toBe(true);
        }
      }
      // Labels named in by (...) come from the series (instance and job from the scrape, le from a histogram).
      for (const [, list = ''] of expr.matchAll(/\bby\s*\(([^)]*)\)/g)) {
        for (const label of list.split(',').map((l) => l.trim())) {
          const fromSeries = [...used].some((n) => known.get(n)?.has(label));
          expect(['instance', 'job', 'le'].includes(label) || fromSeries, `${rule.alert}: by (${label})`).toBe(true);
        }
      }
    }
    // What docs/production.md says is watched: backlog age, failing deliveries, 5xx answers, the pool.
    for (const name of [
      'paylinks_webhook_oldest_due_seconds',
      'paylinks_webhook_deliveries_failed_total',
      'paylinks_webhook_attempts_total',
      'paylinks_http_request_duration_seconds_count',
      'paylinks_db_pool_connections',
    ]) {
      expect(used.has(name), name).toBe(true);
    }
  });
});
