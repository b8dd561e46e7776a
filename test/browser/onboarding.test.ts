import { join } from 'node:path';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { browserForTests, SCREENSHOTS } from './browser.js';
import { type OpenedPage, openPage, signIn, view } from './fixture.js';

/**
 * The first look at an empty memory: it says how to connect an agent, with a copy-ready line for
 * Claude Code, Cursor, VS Code and any client that takes JSON, each naming this endpoint; no
 * forget buttons and no "0 … memories shown"; a search says it found nothing.
 */

const browser = await browserForTests('onboarding on an empty memory');

if (browser) {
  let endpoint: TestEndpoint;
  let fresh: IssuedKey;
  let opened: OpenedPage;

  beforeAll(async () => {
    endpoint = await startTestEndpoint();
    fresh = await endpoint.issueKey('first-agent');
    opened = await openPage(browser, endpoint.url, { permissions: ['clipboard-read', 'clipboard-write'] });
    await signIn(opened.page, fresh.token);
    await opened.page.locator('#connect-text:not(:empty)').waitFor();
  });
  afterAll(async () => {
    await opened?.close();
    await browser.close();
    await endpoint?.close();
  });

  const snippet = async (client: string) => {
    await opened.page.getByLabel('Client', { exact: true }).first().selectOption(client);
    return (await opened.page.locator('#connect-text').textContent()) ?? '';
  };

  test('an empty memory opens on how to connect an agent, before the counts', async () => {
    const { page } = opened;
    expect(await page.locator('#totals').textContent()).toContain('Nothing remembered yet');
    expect(await page.locator('#connect-intro').textContent()).toContain('Nothing is remembered yet');
    const order = await page.evaluate(() => {
      const connect = document.getElementById('connect');
      const kinds = document.getElementById('kinds');
      return connect && kinds ? connect.compareDocumentPosition(kinds) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
    });
    expect(order).toBeTruthy();
    expect(await page.locator('#connect-client option').allTextContents()).toEqual([
      'Claude Code',
      'Cursor',
      'VS Code',
      'Any other client (JSON)',
    ]);
    await page.screenshot({ path: join(SCREENSHOTS, 'onboarding.png'), fullPage: true });
  });

  test('each client’s line names this endpoint; the key goes in only when asked, and never into VS Code’s file', async () => {
    const mcp = `${endpoint.url}/mcp`;
    const claude = await snippet('claude-code');
    expect(claude).toBe(`claude mcp add --transport http --scope user naaba ${mcp} --header 'Authorization: Bearer nb_…'`);
    const cursor = JSON.parse(await snippet('cursor'));
    expect(cursor).toEqual({ mcpServers: { naaba: { url: mcp, headers: { Authorization: 'Bearer nb_…' } } } });
    const vscode = JSON.parse(await snippet('vscode'));
    expect(vscode.servers.naaba).toEqual({
      type: 'http',
      url: mcp,
      headers: { Authorization: 'Bearer \u0024{input:naaba-key}' },
    });
    expect(vscode.inputs[0]).toMatchObject({ type: 'promptString', id: 'naaba-key', password: true });
    expect(JSON.parse(await snippet('json')).mcpServers.naaba).toEqual({
      type: 'http',
      url: mcp,
      headers: { Authorization: 'Bearer nb_…' },
    });
    expect(await opened.page.locator('#connect-cli').textContent()).toBe(
      `npx naaba connect json --issue my-agent --user ${fresh.userId} --data ${join(process.cwd(), '.naaba')}`,
    );
    await snippet('cursor');
    await opened.page.getByLabel('Put my key in it').check();
    expect(JSON.parse(await snippet('cursor')).mcpServers.naaba.headers.Authorization).toBe(`Bearer ${fresh.token}`);
    await snippet('vscode');
    expect(await opened.page.getByLabel('Put my key in it').isDisabled()).toBe(true);
    expect(await snippet('vscode')).not.toContain(fresh.token);
    await snippet('cursor');
    await opened.page.getByLabel('Put my key in it').uncheck();
    expect(await snippet('cursor')).not.toContain(fresh.token);
  });

  test('Copy puts the line on the clipboard', async () => {
    const text = await snippet('claude-code');
    await opened.page.getByRole('button', { name: 'Copy' }).click();
    await opened.page.locator('#status', { hasText: 'Copied' }).waitFor();
    expect(await opened.page.evaluate(() => navigator.clipboard.readText())).toBe(text);
  });

  test('the empty list says what to do, with no forget buttons and no "0 memories shown"', async () => {
    const { page } = opened;
    await view(page, 'Memories', '#empty:not([hidden])');
    expect(await page.locator('#empty').textContent()).toContain('Nothing remembered yet. Connect an agent');
    expect(await page.locator('#list-caption').textContent()).toBe('');
    expect(await page.getByRole('button', { name: /^Forget(?!ting)/ }).evaluateAll((b) => b.map((x) => x.outerHTML))).toEqual([]);
    await page.getByRole('button', { name: 'How to connect' }).click();
    await page.locator('#view-overview:not([hidden])').waitFor();
  });

  test('a search that finds nothing says so, with nothing listed', async () => {
    const { page } = opened;
    await view(page, 'Memories', '#empty:not([hidden])');
    await page.getByLabel('Search', { exact: true }).fill('ferry timetable');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page
      .locator('#empty', { hasText: 'Nothing found for “ferry timetable”: none of your memories relates to it.' })
      .waitFor();
    expect(await page.locator('#memories li').count()).toBe(0);
    expect(await page.locator('#list-caption').textContent()).toBe('');
  });

  test('next to go and the journal have words for nothing, too', async () => {
    const { page } = opened;
    await view(page, 'Next to go', '#next .empty');
    expect(await page.locator('#next').textContent()).toBe('Nothing remembered yet, so nothing to lose.');
    await view(page, 'Forgetting journal', '#journal tbody tr');
    expect(await page.locator('#journal tbody').textContent()).toBe('Nothing forgotten automatically yet.');
  });
}
