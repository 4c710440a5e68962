import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// Each module owns its tables: the lint configuration refuses an import of another module's sql.ts,
// so a change that reaches into another module's queries fails `npm run lint`. Checked here on
// probe files (linted as text under a path inside src/, never written).

const root = fileURLToPath(new URL('../..', import.meta.url));

async function restricted(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('module table ownership (lint)', () => {
  it("refuses another module's sql.ts, from a module and from a top-level file", async () => {
    expect(await restricted('src/checkout/probe.ts', "import { insertPayment } from '../payments/sql.js';\nexport const x = insertPayment;\n")).toHaveLength(1);
    expect(await restricted('src/checkout/pages/probe.ts', "import { lockLink } from '../../paymentLinks/sql.js';\nexport const x = lockLink;\n")).toHaveLength(
      1,
    );
    expect(
      await restricted('src/payments/probe.ts', "import { recordAttempts } from '../webhooks/delivery/sql.js';\nexport const x = recordAttempts;\n"),
    ).toHaveLength(1);
    expect(await restricted('src/probe.ts', "import { findSession } from './checkout/sql.js';\nexport const x = findSession;\n")).toHaveLength(1);
  });

  it("allows a module its own queries, and every module another's service.ts", async () => {
    expect(await restricted('src/payments/probe.ts', "import { insertPayment } from './sql.js';\nexport const x = insertPayment;\n")).toEqual([]);
    expect(await restricted('src/payments/tokens/probe.ts', "import { insertPayment } from '../sql.js';\nexport const x = insertPayment;\n")).toEqual([]);
    expect(await restricted('src/checkout/probe.ts', "import { recordPayment } from '../payments/service.js';\nexport const x = recordPayment;\n")).toEqual([]);
  });
});
