// Builds the package twice from one source: ES modules in dist/esm and CommonJS in dist/cjs, each with
// its own declarations, so `import` and `require` both get code and types that match them.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
// The package is "type": "module"; this marks the .js files under dist/cjs as CommonJS.
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
