import { join } from 'node:path';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { newToken } from '../../lambda/auth/token.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { browserForTests, SCREENSHOTS } from './browser.js';
import { openPage, signIn, view } from './fixture.js';

/**
 * Honest states: a loading indicator while a request runs, an error that clears on the next call
 * that works, a network failure in words (never "Failed to fetch") and marked as possibly out of
 * date, success in a neutral style, and distinct words for an unknown key at sign-in and for a
 * key revoked while signed in.
 */

const browser = await browserForTests('the page’s states: loading, errors, success, sign-in');

if (browser) {
  let endpoint: TestEndpoint;
  let owner: IssuedKey;

  beforeAll(async () => {
    endpoint = await startTestEndpoint();
    owner = await endpoint.issueKey('page-owner');
    const mcp = await connect(endpoint.mcpUrl, owner.token);
    await call(mcp, 'remember', { content: 'The ferry to Lamu leaves at nine.', kind: 'fact' });
    await call(mcp, 'remember', { content: 'Amina prefers tea without sugar.', kind: 'preference' });
    await mcp.close();
  });
  afterAll(async () => {
    await browser.close();
    await endpoint?.close();
  });

  test('an unknown key at sign-in stays on the form with its own message, and never says "signed out"', async () => {
    const opened = await openPage(browser, endpoint.url);
    await opened.page.getByLabel('API key').fill(newToken());
    await opened.page.getByRole('button', { name: 'Sign in' }).click();
    const alert = opened.page.getByRole('alert');
    await alert.filter({ hasText: 'This key is not known here' }).waitFor();
    expect(await alert.textContent()).not.toMatch(/signed out/i);
    expect(await opened.page.locator('#sign-in').isVisible()).toBe(true);
    expect(await opened.page.locator('#app').isVisible()).toBe(false);
    expect(await opened.page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await opened.page.evaluate(() => document.activeElement?.id)).toBe('token');
    await opened.page.screenshot({ path: join(SCREENSHOTS, 'sign-in-unknown-key.png') });
    await opened.close();
  });

  test('a key revoked while signed in signs out with words of its own', async () => {
    const doomed = await endpoint.issueKey('soon-revoked');
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, doomed.token);
    await (await endpoint.container.keys()).revoke(doomed.keyId);
    await view(opened.page, 'Memories', '#sign-in:not([hidden])');
    expect(await opened.page.getByRole('alert').textContent()).toBe(
      'Signed out: this key was revoked or is no longer valid. Sign in with another key.',
    );
    await opened.close();
  });

  test('a loading indicator shows while a request runs, and goes when it is done', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await opened.page.route('**/api/next?*', async (route) => {
      await held;
      await route.continue();
    });
    await opened.page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Next to go' }).click();
    await opened.page.locator('#busy', { hasText: 'Loading…' }).waitFor();
    expect(await opened.page.locator('#main').getAttribute('aria-busy')).toBe('true');
    release();
    await opened.page.locator('#next [data-kind]').first().waitFor();
    await opened.page.locator('#busy:empty').waitFor({ state: 'attached' });
    expect(await opened.page.locator('#main').getAttribute('aria-busy')).toBe('false');
    await opened.close();
  });

  test('the network down: said in words over what may be out of date; the next call that works clears both', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Memories', '#memories li.memory');
    await opened.page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await opened.page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Next to go' }).click();
    const alert = opened.page.getByRole('alert');
    await alert.filter({ hasText: 'Could not reach naaba' }).waitFor();
    expect(await alert.textContent()).not.toContain('Failed to fetch');
    expect(await opened.page.locator('#stale').isVisible()).toBe(true);
    await opened.page.screenshot({ path: join(SCREENSHOTS, 'network-down.png') });
    await opened.page.unroute('**/api/**');
    await view(opened.page, 'Next to go', '#next [data-kind]');
    expect(await opened.page.locator('#notice').isVisible()).toBe(false);
    expect(await opened.page.locator('#stale').isVisible()).toBe(false);
    await opened.close();
  });

  test('a server error shows its message, and is gone after the next call that works', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    await opened.page.route('**/api/journal/daily?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"the database is busy; retry"}' }),
    );
    await opened.page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Forgetting journal' }).click();
    await opened.page.getByRole('alert').filter({ hasText: 'the database is busy; retry' }).waitFor();
    await opened.page.unroute('**/api/journal/daily?*');
    await view(opened.page, 'Overview', '#kinds [data-kind]');
    await opened.page.locator('#notice[hidden]').waitFor({ state: 'attached' });
    await opened.close();
  });

  test('success is said in a neutral style, not as an alert', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Memories', '#memories li.memory');
    await opened.page.locator('#memories li.memory').first().getByRole('button', { name: /^Pin:/ }).click();
    const status = opened.page.locator('#status');
    await status.filter({ hasText: 'Pinned' }).waitFor();
    expect(await status.getAttribute('role')).toBe('status');
    expect(await opened.page.locator('#notice').isVisible()).toBe(false);
    const colours = await opened.page.evaluate(() => {
      const ok = getComputedStyle(document.getElementById('status') as HTMLElement).borderLeftColor;
      const notice = document.getElementById('notice') as HTMLElement;
      notice.hidden = false;
      const error = getComputedStyle(notice).borderLeftColor;
      notice.hidden = true;
      return { ok, error };
    });
    expect(colours.ok).not.toBe(colours.error);
    await opened.close();
  });
}
