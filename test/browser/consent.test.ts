import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { ManualOAuthFlow, pkce } from '../support/oauth.js';
import { BROWSER_STEP_MS, browserForTests, SCREENSHOTS } from './browser.js';

/**
 * The consent page in headless Chromium against the real local server: a client with a hostile
 * name, a loopback redirect URI served by a real listener, a key of another region refused on the
 * page, then the person's key allowed, and the code the browser carries back exchanged for tokens.
 */

const HOSTILE_NAME = '<img src=x onerror=alert(1)> Notes';

const browser = await browserForTests('consent page in a real browser');

if (browser) {
  let endpoint: TestEndpoint;
  let flow: ManualOAuthFlow;
  let key: IssuedKey;
  let callback: Server;
  let redirectUri: string;
  let clientId: string;
  let context: BrowserContext;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const landed: URL[] = [];

  async function openConsent(state: string): Promise<{ page: Page; verifier: string }> {
    const { verifier, challenge } = pkce();
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // A refused form answers 401/403, which Chromium also logs; the errors that matter are scripts and CSP.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    await page.goto(flow.authorizeUrl({ client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, state }).href);
    return { page, verifier };
  }

  beforeAll(async () => {
    endpoint = await startTestEndpoint();
    flow = new ManualOAuthFlow(endpoint.url);
    key = await endpoint.issueKey('person');
    // The client's redirect endpoint: a real listener on loopback, as a native app runs one.
    callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') landed.push(url);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('signed in; you can close this tab');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    clientId = await flow.client(redirectUri, HOSTILE_NAME);
    context = await browser.newContext({ viewport: { width: 900, height: 800 } });
    context.setDefaultTimeout(BROWSER_STEP_MS);
  });
  afterAll(async () => {
    await context?.close();
    await browser.close();
    callback?.close();
    await endpoint?.close();
  });

  test('the page names the client and where it sends the person, as text, under a strict CSP', async () => {
    const { page } = await openConsent('s-show');
    const response = await fetch(page.url());
    const csp = response.headers.get('content-security-policy') ?? '';
    await response.body?.cancel();

    expect(await page.locator('#client-name').textContent()).toBe(HOSTILE_NAME);
    expect(await page.locator('#redirect-uri').textContent()).toBe(redirectUri);
    // The agent name its memories will carry: the name within the characters key names allow.
    expect(await page.locator('#agent-name').textContent()).toBe('img src x onerror alert 1 Notes');
    expect(await page.locator('form#consent img, script').count()).toBe(0);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`form-action 'self' ${new URL(redirectUri).origin}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(dialogs).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'consent.png'), fullPage: true });
    await page.close();
  });

  test('a key of another region is refused on the page, and nothing reaches the client', async () => {
    const other = await endpoint.issueKey('traveller', 'us-east-1');
    const { page } = await openConsent('s-region');
    await page.getByLabel('Your naaba key').fill(other.token);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.locator('#notice').waitFor();

    expect(await page.locator('#notice').textContent()).toContain('us-east-1');
    expect(landed).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'consent-refused.png'), fullPage: true });
    await page.close();
  });

  test('allow with the person’s key: the browser lands on the client with a code and its state, and the code buys tokens once', async () => {
    const { page, verifier } = await openConsent('s-allow');
    await page.getByLabel('Your naaba key').fill(key.token);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));

    const arrival = landed.at(-1);
    expect(arrival?.searchParams.get('state')).toBe('s-allow');
    expect(arrival?.searchParams.get('iss')).toBe(endpoint.url);
    const code = arrival?.searchParams.get('code') ?? '';
    expect(code).toMatch(/^nbc_/);
    const tokens = await flow.token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    expect(String(tokens.body.access_token)).toMatch(/^nba_/);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  test('deny: the browser lands on the client with access_denied and no code', async () => {
    const before = landed.length;
    const { page } = await openConsent('s-deny');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));

    expect(landed).toHaveLength(before + 1);
    expect(landed.at(-1)?.searchParams.get('error')).toBe('access_denied');
    expect(landed.at(-1)?.searchParams.has('code')).toBe(false);
    await page.close();
  });

  test('usable on a phone-sized screen: nothing wider than the viewport', async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await phone.newPage();
    const { challenge } = pkce();
    await page.goto(flow.authorizeUrl({ client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge }).href);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(SCREENSHOTS, 'consent-phone.png'), fullPage: true });
    await phone.close();
  });
}
