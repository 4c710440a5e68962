#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50 --liftoff-only
// The package's bin (§Running the service). The TypeScript sources are compiled to dist/ by `npm ci` (the `prepare` script).
// A young generation of 8 MB instead of V8's 16 MB keeps serve's peak RSS about 15 MB lower under load
// at the same throughput, and an old generation that may grow by half its live size before a full
// collection (instead of up to four times) about 100 MB lower under the API list's load
// (docs/performance.md, "Peak RSS of serve on PostgreSQL"). --liftoff-only keeps the embedded
// database's WebAssembly on V8's baseline compiler from the process's start: set later, from inside
// (src/db/database.ts), it takes effect on Node 22 only, and Node 24 peaked at about 720 MB instead
// of 200 at every start (docs/performance.md, "The embedded database's memory").
import { main } from '../dist/cli.js';

await main(process.argv);
