import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, Page } from 'playwright-core';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { parseCuration } from '../../lambda/config/curation-file.js';
import { sweepRegion } from '../../lambda/region-sweep.js';
import { CurationModel } from '../model/curation-model.js';
import { ManualClock } from '../support/clock.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { BROWSER_STEP_MS, browserForTests, SCREENSHOTS } from './browser.js';
import { view } from './fixture.js';

/**
 * The memory page tells expiry as expiry: after session memories expire and the sweep removes
 * them, the page counts none, its journal shows expiry lines (and no ceiling line), and its
 * "next to go" lists exactly what the reference model says goes next, in that order.
 */

const CURATION = JSON.stringify({ kinds: { fact: { ceiling: 3 }, session: { ceiling: 3, ttl: '60s' } }, pin_limit: 3 });
const RULES = parseCuration(CURATION, 'test');
const T0 = Date.parse('2026-01-01T09:00:00Z');

const browser = await browserForTests('the page shows expiry as expiry');

if (browser) {
  const clock = new ManualClock(T0);
  const model = new CurationModel(RULES, T0);
  let endpoint: TestEndpoint;
  let owner: IssuedKey;
  let client: Client;
  let context: BrowserContext;
  let page: Page;

  /** Remembers through MCP and in the model alike. */
  async function remember(content: string, kind: string, pinned = false): Promise<string> {
    const expected = model.remember('owner', kind, content, pinned);
    const { structuredContent } = await call<{ id: string; outcome: string }>(client, 'remember', { content, kind, pinned });
    expect(structuredContent.outcome).toBe(expected.outcome);
    model.applyRemember('owner', kind, content, expected, structuredContent.id);
    return structuredContent.id;
  }

  async function recall(query: string): Promise<void> {
    const { structuredContent } = await call<{ memories: { id: string }[] }>(client, 'recall', { query, limit: 1 });
    model.recalled(
      'owner',
      structuredContent.memories.map((m) => m.id),
    );
  }

  function advance(seconds: number): void {
    clock.advance(seconds);
    model.now += seconds * 1000;
  }

  beforeAll(async () => {
    endpoint = await startTestEndpoint({ clock, env: { NAABA_CURATION: CURATION } });
    owner = await endpoint.issueKey('page-owner');
    client = await connect(endpoint.mcpUrl, owner.token);
    await remember('The standup moved to 9:30.', 'session');
    advance(5);
    await remember('Léa is reviewing the migration.', 'session');
    await remember('The staging database is read-only today.', 'session', true);
    advance(5);
    await remember('Invoices are due on the fifth.', 'fact');
    await remember('The office wifi is called Baobab.', 'fact');
    advance(5);
    await remember('Kofi owns the release notes.', 'fact');
    advance(1);
    await recall('Invoices due fifth');
    advance(70);
    // Two unpinned session memories are past their 60 s; the sweep the server runs removes them.
    await sweepRegion(endpoint.container);
    model.sweep();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(BROWSER_STEP_MS);
    page = await context.newPage();
    await page.goto(`${endpoint.url}/`);
    await page.getByLabel('API key').fill(owner.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#kinds [data-kind] .count').first().waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await browser.close();
    await client?.close();
    await endpoint?.close();
  });

  test('the overview counts only live memories: the pinned session memory, not the expired ones', async () => {
    expect(Number(await page.locator('#kinds [data-kind="session"] .count').textContent())).toBe(1);
    expect(Number(await page.locator('#kinds [data-kind="fact"] .count').textContent())).toBe(3);
  });

  test('the journal shows two expiry lines and no ceiling line', async () => {
    await view(page, 'Forgetting journal', '#journal tbody tr');
    // The two expired five seconds apart at the same age: they read the same, so they are one row of two lines.
    const rows = await page
      .locator('#journal tbody tr')
      .evaluateAll((trs) => trs.map((r) => [r.getAttribute('data-rule'), r.getAttribute('data-lines')]));
    expect(rows).toEqual([['expiry', '2']]);
    expect(model.journal('owner').map((l) => l.rule)).toEqual(['expiry', 'expiry']);
    expect(await page.locator('#chart rect[data-rule="expiry"]').count()).toBe(1);
    expect(await page.locator('#chart rect[data-rule="ceiling"]').count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'journal-expiry.png'), fullPage: true });
  });

  test('next to go lists, per kind, what the reference model says goes next, in its order', async () => {
    await view(page, 'Next to go', '#next [data-kind="fact"] .evict li');
    for (const kind of ['fact', 'session']) {
      const shown = await page
        .locator(`#next [data-kind="${kind}"] .evict li`)
        .evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
      expect(shown).toEqual(model.evictionOrder('owner', kind).map((m) => m.id));
    }
    // The recalled invoice note is no longer first in line: the wifi note is.
    expect(model.evictionOrder('owner', 'fact').map((m) => m.recallCount)).toEqual([0, 0, 1]);
    await page.screenshot({ path: join(SCREENSHOTS, 'next-after-expiry.png'), fullPage: true });
  });
}
