import { chromium, type Browser } from 'playwright-core';

// Debian's Chromium for the browser tests, started the one way: headless, without a sandbox (the
// tests run as a plain user in a container), and without the background traffic that would slow a
// test or reach the network.

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
