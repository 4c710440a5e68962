import { apiBenchmarks, pgliteStartup, selected } from './api.js';
import { blackboxBenchmarks } from './blackbox.js';
import { splitCores } from './cores.js';
import { deliveryBenchmarks } from './delivery.js';
import { flashSaleBenchmarks } from './flashsale.js';
import { portalBenchmarks } from './portal.js';
import { scaleBenchmarks } from './scale.js';
import { fmt, printTable, runtimeLine, type Row } from './lib.js';

// `npm run bench`: every benchmark, one table (docs/performance.md). Figures are reported against a baseline
// measured in the same run on this machine; nothing here fails on a timing.

console.log(runtimeLine());
const split = splitCores();
if (split !== null) console.log(split);
const rows: Row[] = [];
const api = await apiBenchmarks();
rows.push(...api.rows);
if (selected('pglite')) rows.push(...(await pgliteStartup()));
if (selected('portal')) rows.push(...(await portalBenchmarks()));
if (selected('flashsale')) {
  const sold = await flashSaleBenchmarks();
  console.log(sold.log);
  rows.push(...sold.rows);
}
if (selected('delivery')) {
  const fresh = await deliveryBenchmarks();
  console.log(fresh.log);
  rows.push(...fresh.rows);
}
if (selected('blackbox')) {
  const box = await blackboxBenchmarks();
  console.log(box.log);
  rows.push(...box.rows);
}
if (selected('scale')) {
  const grown = await scaleBenchmarks();
  console.log(grown.log);
  rows.push(...grown.rows);
}
const HISTORY = Number(process.env.BENCH_HISTORY ?? 1_000_000);
if (HISTORY > 0 && selected('history')) {
  const aged = await deliveryBenchmarks({ history: HISTORY });
  console.log(aged.log);
  rows.push(...aged.rows.filter((r) => !r.operation.startsWith('raw') && !r.operation.startsWith('enqueue')));
}
rows.push({
  operation: 'peak RSS of serve on PostgreSQL (during the HTTP runs)',
  figure: `${fmt(api.peakRssMb)} MB`,
  baseline: '',
  ratio: '',
  target: '≤ 200 MB',
  met: api.peakRssMb <= 200,
});
console.log('');
console.log(runtimeLine());
printTable(rows);
