import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium (CHROMIUM_PATH to use another), headless, with the flags this machine's
 * closed network needs: every page test of every app launches it this way.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
