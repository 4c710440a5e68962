import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMigrations, type Migration } from './migrations.js';

// A fresh, migrated embedded data folder made once by `npm run build` (scripts/build-data-template.mjs)
// and kept in dist/, never in git. A new folder starts as a copy of it instead of running PGlite's
// initdb inside the server: initdb took the first start's peak RSS above 800 MB (docs/performance.md).
// The server still runs every migration on start, so a template older than migrations/ only means
// the newer files are applied then; a template made by another PGlite version, or with a migration
// that migrations/ no longer holds as it was, is not used at all (initdb then runs as before).

/** Where the build puts the template: the data folder in pgdata/, what it holds in template.json. */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../dist/data-template/', import.meta.url));

/** Written by PGlite's initdb; a folder without it has no database yet. */
export const PG_VERSION = 'PG_VERSION';

export interface TemplateManifest {
  pglite: string;
  migrations: { name: string; sha256: string }[];
}

/** The installed PGlite's version: a data folder is only reused by the version that made it. */
export function pgliteVersion(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@electric-sql/pglite');
  // .../@electric-sql/pglite/dist/index.cjs → .../@electric-sql/pglite/package.json
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('@electric-sql/pglite: no version in its package.json');
  return pkg.version;
}

export const digest = (m: Migration): { name: string; sha256: string } => ({ name: m.name, sha256: createHash('sha256').update(m.sql).digest('hex') });

export function readManifest(templateDir: string): TemplateManifest | undefined {
  try {
    const v = JSON.parse(readFileSync(join(templateDir, 'template.json'), 'utf8')) as Partial<TemplateManifest>;
    if (typeof v.pglite !== 'string' || !Array.isArray(v.migrations)) return undefined;
    return { pglite: v.pglite, migrations: v.migrations };
  } catch {
    return undefined;
  }
}

/** Whether the template in templateDir may start a folder for these migrations (see the top of this file). */
export function templateUsable(templateDir: string, migrations: Migration[] = loadMigrations()): boolean {
  const manifest = readManifest(templateDir);
  if (!manifest || manifest.pglite !== pgliteVersion()) return false;
  if (!existsSync(join(templateDir, 'pgdata', PG_VERSION))) return false;
  const known = new Map(migrations.map((m) => [m.name, digest(m).sha256]));
  return manifest.migrations.every((m) => known.get(m.name) === m.sha256);
}

/**
 * Starts a data folder that holds no database yet as a copy of the template, if one is usable.
 * Returns whether it did. The caller holds the folder's lock. PG_VERSION is copied last: a copy cut
 * short leaves a folder without it, which the next start copies over again.
 */
export function seedFromTemplate(dataDir: string, templateDir: string = TEMPLATE_DIR): boolean {
  if (existsSync(join(dataDir, PG_VERSION)) || !templateUsable(templateDir)) return false;
  const source = join(templateDir, 'pgdata');
  for (const entry of readdirSync(source)) {
    if (entry !== PG_VERSION) cpSync(join(source, entry), join(dataDir, entry), { recursive: true, force: true });
  }
  cpSync(join(source, PG_VERSION), join(dataDir, PG_VERSION));
  return true;
}
