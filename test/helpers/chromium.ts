import { chromium, type Browser } from 'playwright-core';

// Debian's Chromium, headless, as the browser tests launch it (the flags of test/checkout/browserMessagesAndTerms.test.ts).

export const CHROMIUM_ARGS = [
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
