import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// Module boundaries (docs/architecture.md): another module's files are imported only through its
// public files in src/modules.json, and a module's sql.ts is never among them, so a change that
// reaches into another module's queries or private files fails `npm run lint`. Checked here on probe
// files (linted as text under a path inside src/, never written).

const root = fileURLToPath(new URL('../..', import.meta.url));

async function restricted(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'paylinks/module-boundaries').map((m) => m.message);
}

const probe = (from: string, name: string) => `import { ${name} } from '${from}';\nexport const x = ${name};\n`;

describe('module table ownership (lint)', () => {
  it("refuses another module's sql.ts, from a module and from a top-level file", async () => {
    expect(await restricted('src/checkout/probe.ts', probe('../payments/sql.js', 'insertPayment'))).toHaveLength(1);
    expect(await restricted('src/checkout/pages/probe.ts', probe('../../paymentLinks/sql.js', 'lockLink'))).toHaveLength(1);
    expect(await restricted('src/payments/probe.ts', probe('../webhooks/delivery/sql.js', 'recordAttempts'))).toHaveLength(1);
    expect(await restricted('src/probe.ts', probe('./checkout/sql.js', 'findSession'))).toHaveLength(1);
  });

  it("allows a module its own queries, and every module another's service.ts", async () => {
    expect(await restricted('src/payments/probe.ts', probe('./sql.js', 'insertPayment'))).toEqual([]);
    expect(await restricted('src/payments/tokens/probe.ts', probe('../sql.js', 'insertPayment'))).toEqual([]);
    expect(await restricted('src/checkout/probe.ts', probe('../payments/service.js', 'recordPayment'))).toEqual([]);
  });
});

describe('module public files (lint)', () => {
  it("refuses a file outside the other module's public list, and names the files to import instead", async () => {
    const messages = await restricted('src/portal/themes/probe.ts', probe('../../checkout/pages/styles.js', 'THEMES'));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('src/checkout/pages/styles.ts');
    expect(messages[0]).toContain('src/checkout/preview.ts');
    expect(await restricted('src/checkout/probe.ts', probe('../payments/modifications/processor.js', 'startProcessor'))).toHaveLength(1);
    expect(await restricted('src/webhooks/probe.ts', "export { can } from '../portal/views/layout.js';\n")).toHaveLength(1);
  });

  it('refuses an entry file to another module, and allows it to the top-level files that start the app', async () => {
    expect(await restricted('src/portal/probe.ts', probe('../paymentLinks/routes.js', 'paymentLinkRoutes'))).toHaveLength(1);
    expect(await restricted('src/probe.ts', probe('./paymentLinks/routes.js', 'paymentLinkRoutes'))).toEqual([]);
  });

  it('closes a folder that src/modules.json does not name', async () => {
    const messages = await restricted('src/audit/probe.ts', probe('../reports/service.js', 'report'));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('offers no file to other modules');
  });

  it("takes a module's own subfolders as its own, whatever they are called", async () => {
    // portal/payments is the portal's page for payments, not the payments module.
    expect(await restricted('src/portal/links/probe.ts', probe('../payments/views.js', 'PaymentsTable'))).toEqual([]);
    expect(await restricted('src/webhooks/listen/probe.ts', probe('../delivery/sql.js', 'recordAttempts'))).toEqual([]);
    expect(await restricted('src/portal/probe.ts', probe('../html/render.js', 'renderPage'))).toEqual([]);
    expect(await restricted('src/portal/probe.ts', probe('../clock.js', 'systemClock'))).toEqual([]);
  });
});
