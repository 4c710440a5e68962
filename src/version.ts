import { readFileSync } from 'node:fs';

// The package's own facts, from package.json (one folder above this file both as source, src/, and
// built, dist/): its version, which `paylinks --version`, the API reference and the OpenAPI document
// all say, and the Node lines its engines name.

interface PackageFacts {
  version?: unknown;
  engines?: { node?: unknown };
}

const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageFacts;

/** The version in package.json. */
export const PACKAGE_VERSION = typeof PACKAGE.version === 'string' ? PACKAGE.version : 'unknown';

/** The engines' lowest Node version (`>=22.12` → [22, 12]). */
function lowestNode(): [number, number] | null {
  const m = /^>=\s*(\d+)(?:\.(\d+))?/.exec(typeof PACKAGE.engines?.node === 'string' ? PACKAGE.engines.node : '');
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : null;
}

/**
 * A sentence for a Node.js below the package's engines (a line past its end of life, whose security
 * fixes have stopped, and which the service is not tested on), or null on a supported one.
 */
export function unsupportedNode(version = process.versions.node): string | null {
  const lowest = lowestNode();
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (lowest === null || major > lowest[0] || (major === lowest[0] && minor >= lowest[1])) return null;
  return (
    `Node.js ${version} is older than this release supports (${lowest[0]}.${lowest[1]} or later; 22, 24 and 26 are tested). ` +
    `It may work, but it is not tested and gets no security fixes: install a maintained line, or run scripts/with-node.sh 22 <command> from the repository.`
  );
}
