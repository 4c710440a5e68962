import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The numbered SQL files in migrations/, read in order (src/db/migrate.ts applies them). Only files:
// this module touches no database, so the embedded data template (template.ts) may read it too.

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const seen = new Set<number>();
  return files.map((file) => {
    const version = Number(file.slice(0, 4));
    if (seen.has(version)) throw new Error(`two migrations share version ${version}: ${file}`);
    seen.add(version);
    return { version, name: file.replace(/\.sql$/, ''), sql: readFileSync(`${dir}/${file}`, 'utf8') };
  });
}
