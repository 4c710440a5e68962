import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// A `--require` hook for a child `node` process: it notes every CommonJS package the process loads
// (from node_modules, named by the last node_modules folder in its path) and writes their names, one a line, to the file named by LOADED_FILE when the
// process exits. The server's packages (pg, undici, fastify, ajv, ...) are all CommonJS.

/** Writes the hook into `dir`; returns its path for `node --require`. */
export async function writeLoadHook(dir: string): Promise<string> {
  const hook = join(dir, 'hook.cjs');
  await writeFile(
    hook,
    `const Module = require('node:module');
const fs = require('node:fs');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const m = /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(Module._resolveFilename(request, parent, isMain));
  if (m) seen.add(m[1]);
  return load.apply(this, arguments);
};
process.on('exit', () => fs.writeFileSync(process.env.LOADED_FILE, [...seen].sort().join('\\n')));
`,
  );
  return hook;
}
