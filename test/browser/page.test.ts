import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { jest } from '@jest/globals';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, Page } from 'playwright-core';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { setEnvironment } from '../handlers/process-env.js';
import type { TestEndpoint } from '../support/endpoint.js';
import { BROWSER_STEP_MS, browserForTests, SCREENSHOTS } from './browser.js';
import { signIn, view } from './fixture.js';

/**
 * The memory page in headless Chromium against the real local server: real keys, a real MCP
 * client to fill and overflow the memory, and SQL to prove that looking is not recalling.
 */

// Every log line the server writes is kept (and checked for the token): DEBUG before the handlers load.
const restoreEnvironment = setEnvironment({ NAABA_LOG_LEVEL: 'DEBUG' });
const { call, connect, startTestEndpoint } = await import('../support/endpoint.js');

const CURATION = JSON.stringify({ kinds: { fact: { ceiling: 4 }, session: { ceiling: 5, ttl: '2h' } }, pin_limit: 3 });
const HOSTILE = ['<img src=x onerror=alert(1)>', 'A closing tag </script><script>alert(2)</script> in a note'];
const FACTS = ['The ferry to Lamu leaves at nine.', 'Amina prefers tea without sugar.', ...HOSTILE];

interface Recalled {
  memories: { id: string; content: string }[];
}
interface Usefulness {
  id: string;
  recall_count: number;
  last_useful_at: string;
}

const browser = await browserForTests('memory page in a real browser');

if (browser) {
  let endpoint: TestEndpoint;
  let owner: IssuedKey;
  let client: Client;
  let context: BrowserContext;
  let page: Page;
  const ids = new Map<string, string>();
  const logs: string[] = [];
  const urls: string[] = [];
  const dialogs: string[] = [];
  const pageErrors: string[] = [];

  const keep = (chunk: unknown) => {
    logs.push(String(chunk));
    return true;
  };

  async function remember(content: string, kind = 'fact'): Promise<string> {
    const { structuredContent } = await call<{ id: string }>(client, 'remember', { content, kind });
    return structuredContent.id;
  }

  async function usefulness(): Promise<Usefulness[]> {
    return endpoint.sql.query<Usefulness>(
      sql`SELECT id::text AS id, recall_count, last_useful_at::text AS last_useful_at FROM memories WHERE user_id = ${param('owner.userId', owner.userId)} ORDER BY id`,
    );
  }

  async function openPage(as: BrowserContext): Promise<Page> {
    const opened = await as.newPage();
    opened.on('request', (request) => urls.push(request.url()));
    opened.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    opened.on('pageerror', (error) => pageErrors.push(error.message));
    opened.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await opened.goto(`${endpoint.url}/`);
    return opened;
  }

  const countOf = async (on: Page, kind: string) => Number(await on.locator(`#kinds [data-kind="${kind}"] .count`).textContent());

  beforeAll(async () => {
    jest.spyOn(process.stdout, 'write').mockImplementation(keep);
    jest.spyOn(process.stderr, 'write').mockImplementation(keep);
    endpoint = await startTestEndpoint({ env: { NAABA_CURATION: CURATION, NAABA_LOG_LEVEL: 'DEBUG' } });
    owner = await endpoint.issueKey('page-owner');
    client = await connect(endpoint.mcpUrl, owner.token, { name: 'browser-tests', version: '1.0.0' });
    for (const content of FACTS) ids.set(content, await remember(content));
    ids.set('session', await remember('Build 4412 is being bisected this afternoon.', 'session'));
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(BROWSER_STEP_MS);
    page = await openPage(context);
  });
  afterAll(async () => {
    await context?.close();
    await browser.close();
    await client?.close();
    await endpoint?.close();
    jest.restoreAllMocks();
    restoreEnvironment();
  });

  test('the page is served under a strict Content-Security-Policy', async () => {
    const response = await fetch(`${endpoint.url}/`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(response.status).toBe(200);
    for (const directive of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"])
      expect(csp).toContain(directive);
  });

  test('sign in: the counts per kind equal curation_state’s', async () => {
    await signIn(page, owner.token);
    const { structuredContent } = await call<{ counts: { per_kind: Record<string, number> } }>(client, 'curation_state', {});
    expect(structuredContent.counts.per_kind).toEqual({ fact: 4, session: 1 });
    for (const [kind, count] of Object.entries(structuredContent.counts.per_kind)) expect(await countOf(page, kind)).toBe(count);
    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
  });

  test('hostile content shows as text and runs nothing', async () => {
    await view(page, 'Memories', '#memories li.memory');
    const shown = await page.locator('#memories .content').allTextContents();
    for (const content of HOSTILE) expect(shown).toContain(content);
    expect(await page.locator('#memories img, #memories script').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'memories.png'), fullPage: true });
  });

  test('browsing and searching leave every recall_count and last_useful_at unchanged', async () => {
    const before = await usefulness();
    await view(page, 'Memories', '#memories li.memory');
    await page.getByLabel('Search').fill('ferry Lamu');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText(/^Best \d+ of 5 memories for/).waitFor();
    expect(await page.locator('#memories .content').first().textContent()).toBe(FACTS[0]);
    await view(page, 'Forgetting journal', '#chart svg');
    await view(page, 'Next to go', '#next [data-kind]');
    await view(page, 'Overview', '#kinds [data-kind]');
    expect(await usefulness()).toEqual(before);
    expect(before).toHaveLength(5);
  });

  test('remembering past the ceiling shows in the journal chart and table, and the next victims change', async () => {
    await view(page, 'Next to go', '#next [data-kind="fact"] .evict li');
    const victimsBefore = await page
      .locator('#next [data-kind="fact"] .evict li')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
    expect(victimsBefore[0]).toBe(ids.get(FACTS[0]!));
    ids.set('late', await remember('The night market closes at eleven.'));
    await view(page, 'Forgetting journal', '#chart svg');
    const bars = page.locator('#chart rect[data-rule="ceiling"]');
    expect(await bars.count()).toBe(1);
    expect(await bars.first().getAttribute('data-count')).toBe('1');
    expect(await page.locator('#journal tbody tr[data-rule="ceiling"]').count()).toBe(1);
    expect(await page.locator('#legend [data-rule="ceiling"]').textContent()).toContain('ceiling: 1');
    expect(await page.locator('#journal').textContent()).not.toContain('Lamu');
    await page.screenshot({ path: join(SCREENSHOTS, 'journal.png'), fullPage: true });
    await view(page, 'Next to go', '#next [data-kind="fact"] .evict li');
    const victimsAfter = await page
      .locator('#next [data-kind="fact"] .evict li')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
    expect(victimsAfter).not.toContain(ids.get(FACTS[0]!));
    expect(victimsAfter[0]).toBe(victimsBefore[1]);
    expect(await page.locator('#next [data-kind="session"] .expiring li').getAttribute('data-id')).toBe(ids.get('session'));
    await page.screenshot({ path: join(SCREENSHOTS, 'next.png'), fullPage: true });
  });

  test('forgetting one memory through the page removes exactly that one', async () => {
    const target = ids.get(FACTS[1]!)!;
    // The search typed before still holds the list: cleared, every memory shows.
    await view(page, 'Memories', '#search');
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await page.locator(`#memories li[data-id="${target}"]`).waitFor();
    await page
      .locator(`#memories li[data-id="${target}"]`)
      .getByRole('button', { name: /^Forget:/ })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Forget it' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Forgotten.').waitFor();
    const remaining = (await usefulness()).map((m) => m.id);
    const expected = [ids.get(FACTS[2]!), ids.get(FACTS[3]!), ids.get('late'), ids.get('session')].sort();
    expect(remaining).toEqual(expected);
    const { structuredContent } = await call<Recalled>(client, 'recall', { query: 'Amina tea sugar', limit: 50 });
    expect(structuredContent.memories.map((m) => m.id)).not.toContain(target);
  });

  test('a second key’s page shows nothing of the first', async () => {
    const other = await endpoint.issueKey('someone-else');
    const elsewhere = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const second = await openPage(elsewhere);
    await signIn(second, other.token);
    expect(await countOf(second, 'fact')).toBe(0);
    await view(second, 'Memories', '#empty:not([hidden])');
    expect(await second.locator('#memories li').count()).toBe(0);
    await view(second, 'Forgetting journal', '#chart svg');
    expect(await second.locator('#chart rect.bar').count()).toBe(0);
    const text = (await second.locator('body').textContent()) ?? '';
    for (const content of [...FACTS, 'night market', 'Build 4412']) expect(text).not.toContain(content);
    expect(await second.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await second.screenshot({ path: join(SCREENSHOTS, 'second-key-375px.png'), fullPage: true });
    await elsewhere.close();
  });

  test('a revoked key is signed out with a clear message', async () => {
    const doomed = await endpoint.issueKey('soon-revoked');
    const revoking = await browser.newContext();
    const third = await openPage(revoking);
    await signIn(third, doomed.token);
    await (await endpoint.container.keys()).revoke(doomed.keyId);
    await view(third, 'Next to go', '#sign-in:not([hidden])');
    expect(await third.getByRole('alert').textContent()).toContain('Signed out: this key was revoked or is no longer valid');
    expect(await third.evaluate(() => sessionStorage.length)).toBe(0);
    await revoking.close();
  });

  test('the token is in no URL, cookie, localStorage entry or server log line', async () => {
    expect(await page.evaluate(() => sessionStorage.getItem('naaba.key'))).toBe(owner.token);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await context.cookies()).toEqual([]);
    expect(urls.length).toBeGreaterThan(10);
    for (const url of urls) {
      expect(url.startsWith(`${endpoint.url}/`) || url.startsWith('data:')).toBe(true);
      expect(url).not.toContain(owner.token);
    }
    const output = logs.join('');
    expect(output).toContain('"level"');
    expect(output).not.toContain(owner.token);
  });
}
