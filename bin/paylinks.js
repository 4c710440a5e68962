#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// The package's bin (§Running the service). The TypeScript sources are compiled to dist/ by `npm ci` (the `prepare` script).
// A young generation of 8 MB instead of V8's 16 MB keeps serve's peak RSS about 15 MB lower under load
// at the same throughput, and an old generation that may grow by half its live size before a full
// collection (instead of up to four times) about 100 MB lower under the API list's load
// (docs/performance.md, "Peak RSS of serve on PostgreSQL").
import { main } from '../dist/cli.js';

await main(process.argv);
