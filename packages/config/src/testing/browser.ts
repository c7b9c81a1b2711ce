import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

const EXECUTABLE_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Debian's Chromium (CHROMIUM_PATH to use another), headless, with the flags this machine's
 * closed network needs: every page test of every app launches it this way.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: EXECUTABLE_PATH, args: ARGS });
}

/**
 * The same Chromium as a member sets it to block every cookie (Settings › Privacy › "Sites can't
 * save data": the profile's default cookie setting 2, block), in a profile of its own.
 */
export async function launchBrowserBlockingCookies(): Promise<BrowserContext> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-no-cookies-'));
  await mkdir(join(profile, 'Default'));
  const preferences = { profile: { default_content_setting_values: { cookies: 2 } } };
  await writeFile(join(profile, 'Default', 'Preferences'), JSON.stringify(preferences));
  const context = await chromium.launchPersistentContext(profile, { executablePath: EXECUTABLE_PATH, args: ARGS });
  context.on('close', () => void rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined));
  return context;
}
