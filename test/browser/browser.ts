import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { environment } from '../../lambda/config/env.js';

/** Where the screenshots of each view go (git-ignored). */
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'browser');

/**
 * How long one browser step (a click's effect, a navigation, a launch) may take: on a shared
 * 2-core machine under load a step that takes 100 ms alone can take tens of seconds, and a
 * timeout must mean the page never got there.
 */
export const BROWSER_STEP_MS = 60_000;

/** Debian's `chromium` package, or the browser NAABA_CHROMIUM names. */
const EXECUTABLE = environment().NAABA_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium with a fresh profile, or why there is none. */
async function launch(): Promise<Browser | string> {
  if (!existsSync(EXECUTABLE)) return `no browser at ${EXECUTABLE} (apt-get install chromium, or set NAABA_CHROMIUM)`;
  try {
    return await chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ARGS, timeout: BROWSER_STEP_MS });
  } catch (error) {
    return `${EXECUTABLE} did not start: ${(error as Error).message.split('\n')[0]}`;
  }
}

/**
 * For a test file that drives a real browser: one launched, or undefined after registering what
 * says why there is none — a failing test when NAABA_REQUIRE_BROWSER=1 (CI), one printed line
 * and a todo otherwise. Never a silent pass.
 */
export async function browserForTests(what: string): Promise<Browser | undefined> {
  const browser = await launch();
  if (typeof browser !== 'string') {
    mkdirSync(SCREENSHOTS, { recursive: true });
    return browser;
  }
  if (environment().NAABA_REQUIRE_BROWSER === '1') {
    console.log(`${what}: FAILED, ${browser}`);
    test(`${what} (a browser is required: NAABA_REQUIRE_BROWSER=1)`, () => {
      throw new Error(browser);
    });
  } else {
    console.log(`${what}: NOT RUN, ${browser}`);
    test.todo(`${what}: not run, ${browser}`);
  }
  return undefined;
}
