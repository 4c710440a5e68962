#!/usr/bin/env node
// The package's bin (D17). The TypeScript sources are compiled to dist/ by `npm ci` (the `prepare` script).
import { main } from '../dist/cli.js';

await main(process.argv);
