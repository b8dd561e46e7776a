import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { BROWSER_STEP_MS } from './browser.js';

/** A page of the memory page, with what it reported: script errors, CSP violations, dialogs. */
export interface OpenedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Uncaught errors and console errors (a CSP violation is one). */
  readonly errors: string[];
  readonly requests: string[];
  close(): Promise<void>;
}

export async function openPage(browser: Browser, url: string, options: BrowserContextOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, ...options });
  context.setDefaultTimeout(BROWSER_STEP_MS);
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${url}/`);
  return { page, context, errors, requests, close: () => context.close() };
}

/**
 * Signs in and waits until the sign-in is over: the overview's counts drawn, then the overview shown
 * (its heading takes the focus last) with no request left in flight. Waiting for the counts alone left
 * the overview's own requests running, and a test that revoked the key then raced them.
 */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('API key').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#kinds [data-kind] .count').first().waitFor();
  await page.waitForFunction(() => document.activeElement?.id === 'h-overview');
  await settled(page);
}

/**
 * Opens a view by its tab and waits until its data is drawn, then for `ready`. The click starts the
 * view's requests at once (`#main` turns `aria-busy`), so waiting for them to end first keeps a view
 * shown before from being read before it is drawn again.
 */
export async function view(page: Page, name: string, ready: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true }).click();
  await settled(page);
  await page.locator(ready).first().waitFor({ state: 'attached' });
}

/** Waits until no request of the page is in flight (the busy indicator is empty). */
export async function settled(page: Page): Promise<void> {
  await page.locator('#main[aria-busy="false"]').waitFor({ state: 'attached' });
}
