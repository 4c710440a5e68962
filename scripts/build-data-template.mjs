// Part of `npm run build` (and so of `npm ci`, through prepare): the migrated embedded data folder that
// a new folder starts from, in dist/data-template/ (src/db/template.ts). Skipped when the one there is
// current. Runs after tsc, from the compiled dist/.
import { buildTemplate } from '../dist/db/buildTemplate.js';
import { TEMPLATE_DIR } from '../dist/db/template.js';

const made = await buildTemplate();
process.stdout.write(made ? `embedded data template made in ${TEMPLATE_DIR}\n` : `embedded data template in ${TEMPLATE_DIR} is current\n`);
