import { chromium, type Browser } from 'playwright-core';

// Debian's Chromium for the browser tests, headless and quiet (no network of its own, no updates):
// the launch the tests of the shopper's pages share.

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
