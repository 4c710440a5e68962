import { chromium, type Browser } from 'playwright-core';

// The one Chromium every browser test runs: Debian's, headless, with nothing of its own going to the
// network (no updates, sync or QUIC), so a page's requests are the test's only traffic.

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
