import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ManualClock } from '../support/clock.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { browserForTests, SCREENSHOTS } from './browser.js';
import { type OpenedPage, openPage, signIn, view } from './fixture.js';
import { REALISTIC_CURATION, type RealisticWeek, realisticJudge, seedRealisticWeek, weekStart } from './realistic.js';

/**
 * Browsing a week of memory: totals, three orders, the six filters, long memories collapsed;
 * the journal's chart with axes and a scale by hour and by day, its values reachable by keyboard
 * and screen readers, lines that read the same grouped; relative times with the absolute on
 * hover, "expires in …", and why one memory goes before another.
 */

const browser = await browserForTests('browsing, the journal chart and times');

/** A long note, about 7.9 KB: the size the issue measured at 2,257 px tall. */
const LONG = Array.from(
  { length: 60 },
  (_, i) => `Step ${i + 1} of the incident review: write down what was seen, when, by whom, and what was done about it.`,
).join('\n');

if (browser) {
  let endpoint: TestEndpoint;
  let week: RealisticWeek;
  let opened: OpenedPage;
  let page: Page;

  const cards = () => page.locator('#memories li.memory');
  /** Does `change` and waits until the list is drawn again with the answer. */
  const redrawn = async (change: () => Promise<unknown>) => {
    const before = await page.locator('#memories').getAttribute('data-renders');
    await change();
    await page.waitForFunction((n) => document.getElementById('memories')?.dataset.renders !== n, before);
  };
  const choose = (label: string, value: string) =>
    redrawn(() => page.locator('#filters').getByLabel(label, { exact: true }).selectOption(value));
  const origin = (text: string) =>
    redrawn(async () => {
      await page.getByLabel('Origin contains').fill(text);
      await page.getByLabel('Origin contains').press('Enter');
    });
  const datetimes = (which: number) =>
    cards().evaluateAll((items, n) => items.map((i) => i.querySelectorAll('time')[n]?.getAttribute('datetime') ?? ''), which);

  beforeAll(async () => {
    const clock = new ManualClock(weekStart());
    endpoint = await startTestEndpoint({ clock, judge: realisticJudge(), env: { NAABA_CURATION: REALISTIC_CURATION } });
    week = await seedRealisticWeek(endpoint, clock);
    const mcp = await connect(endpoint.mcpUrl, week.laptop.token, { name: 'claude-code', version: '2.1.4' });
    await call(mcp, 'remember', { content: LONG, kind: 'event', origin: 'incident review template' });
    await mcp.close();
    opened = await openPage(browser, endpoint.url);
    page = opened.page;
    await signIn(page, week.laptop.token);
  }, 120_000);
  afterAll(async () => {
    await opened?.close();
    await browser.close();
    await endpoint?.close();
  });

  test('totals: the overview counts what is kept, the list says how many it shows of how many', async () => {
    const counts = await page.locator('#kinds [data-kind] .count').allTextContents();
    const total = counts.reduce((sum, n) => sum + Number(n), 0);
    expect(await page.locator('#totals').textContent()).toBe(`${total} memories kept, 2 of 5 pinned.`);
    await view(page, 'Memories', '#memories li.memory');
    expect(await page.locator('#list-caption').textContent()).toBe(`Showing ${total} of ${total} memories`);
    expect(await cards().count()).toBe(total);
  });

  test('three orders: newest first, last useful first, most recalled first', async () => {
    const created = await datetimes(0);
    expect(created).toEqual([...created].sort().reverse());
    await choose('Order', 'last_useful');
    const useful = await datetimes(1);
    expect(useful).toEqual([...useful].sort().reverse());
    expect(useful).not.toEqual(created);
    await choose('Order', 'recalls');
    const recalls = await cards().evaluateAll((items) =>
      items.map((i) => Number(/recalled (\d+)×/.exec(i.textContent ?? '')?.[1])),
    );
    expect(recalls).toEqual([...recalls].sort((a, b) => b - a));
    expect(recalls[0]).toBeGreaterThan(0);
    await choose('Order', 'created');
  });

  test('filters: kind, agent, client, origin, pinned and conflicting, each with its total', async () => {
    const eventCount = Number(await page.locator('#kinds [data-kind="event"] .count').textContent());
    await choose('Kind', 'event');
    expect(await cards().count()).toBe(eventCount);
    expect(await page.locator('#list-caption').textContent()).toBe(`Showing ${eventCount} of ${eventCount} event memories`);
    await choose('Kind', '');
    await choose('Agent', 'lea-cursor');
    const byCursor = await cards().evaluateAll((items) => items.map((i) => i.querySelector('.meta')?.textContent ?? ''));
    expect(byCursor.length).toBeGreaterThan(2);
    expect(byCursor.every((t) => t.includes('lea-cursor'))).toBe(true);
    await choose('Agent', '');
    await choose('Client', 'claude-code/2.1.4');
    expect((await cards().allTextContents()).every((t) => t.includes('claude-code/2.1.4'))).toBe(true);
    await choose('Client', '');
    await origin('readme');
    expect(await page.locator('#list-caption').textContent()).toBe('Showing 2 of 2 memories that match the filters');
    expect((await cards().locator('.content').allTextContents()).sort()).toEqual([
      'Our Postgres is 16.4 in production and 15 in CI.',
      'Refund amounts are stored in cents, as integers.',
    ]);
    await origin('');
    await choose('Pinned', 'true');
    expect(await cards().count()).toBe(2);
    expect(await cards().locator('.tag.pinned').count()).toBe(2);
    await choose('Agent', 'lea-cursor');
    expect(await page.locator('#list-caption').textContent()).toBe('Showing 1 of 1 memories that match the filters');
    await choose('Agent', '');
    await choose('Pinned', '');
    await redrawn(() => page.getByLabel('Only conflicting').check());
    expect(await page.locator('#list-caption').textContent()).toBe('Showing 2 of 2 memories that match the filters');
    expect((await cards().locator('.content').allTextContents()).every((t) => t.includes('design review'))).toBe(true);
    await redrawn(() => page.getByLabel('Only conflicting').uncheck());
  });

  test('a 7.9 KB memory shows collapsed, and opens in full on request', async () => {
    const card = cards().filter({ hasText: 'Step 1 of the incident review' });
    const collapsed = (await card.boundingBox())?.height ?? 0;
    expect(collapsed).toBeGreaterThan(50);
    expect(collapsed).toBeLessThan(320);
    const expand = card.getByRole('button', { name: /^Show all \(\d+\.\d KB\)$/ });
    expect(await expand.getAttribute('aria-expanded')).toBe('false');
    await expand.click();
    expect(await card.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
    expect((await card.boundingBox())?.height ?? 0).toBeGreaterThan(1500);
    await card.getByRole('button', { name: 'Show less' }).click();
    expect((await card.boundingBox())?.height ?? 0).toBeLessThan(320);
    await page.screenshot({ path: join(SCREENSHOTS, 'browse.png') });
  });

  test('times read relative, with the absolute on hover; a session memory says when it expires', async () => {
    const times = await cards()
      .locator('time')
      .evaluateAll((nodes) =>
        nodes.map((n) => ({
          text: n.textContent ?? '',
          absolute: n.getAttribute('title') === new Date(n.getAttribute('datetime') ?? '').toLocaleString(),
        })),
      );
    expect(times.length).toBeGreaterThan(40);
    for (const t of times)
      expect([t.text, t.absolute]).toEqual([expect.stringMatching(/ago|^in |yesterday|tomorrow|^now$/), true]);
    const session = cards().filter({ hasText: 'Bisecting the flaky test' });
    expect(await session.textContent()).toMatch(/expires in \d+ hours/);
  });

  test('the chart has axes and a scale, 30 days or 24 hours, every value reachable by keyboard', async () => {
    await view(page, 'Forgetting journal', '#chart svg');
    const chart = page.locator('#chart svg');
    expect(await chart.locator('g.period').count()).toBe(30);
    expect(await chart.locator('text').allTextContents()).toEqual(expect.arrayContaining(['0', 'lines per day']));
    expect(await chart.locator('line.axis').count()).toBe(2);
    const bars = await chart.locator('rect.bar').evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('data-count'))));
    const legend = await page.locator('#legend li').allTextContents();
    const legendTotal = legend.reduce((sum, t) => sum + Number(/: (\d+) —/.exec(t)?.[1] ?? 0), 0);
    expect(bars.reduce((a, b) => a + b, 0)).toBe(legendTotal);
    expect(legendTotal).toBeGreaterThan(3);
    // Tab reaches the chart, arrows move along it, and each period says its counts.
    await page.getByRole('button', { name: 'Last 30 days' }).focus();
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
    const last = await focused();
    expect(last).toMatch(/: \d+ forgotten — \d+ by ceiling, \d+ by expiry, \d+ by duplicate, \d+ by superseded$/);
    expect(await page.locator('#chart-readout').textContent()).toBe(last);
    await page.keyboard.press('Home');
    expect(await focused()).not.toBe(last);
    expect(await page.locator('#chart-readout').textContent()).toBe(await focused());
    await page.keyboard.press('ArrowRight');
    expect(
      await page.evaluate(() => [...document.querySelectorAll('#chart g.period')].indexOf(document.activeElement as Element)),
    ).toBe(1);
    await page.getByRole('button', { name: 'Last 24 hours' }).click();
    await page.locator('#chart svg[aria-label*="per hour over the last 24 hours"]').waitFor();
    expect(await page.locator('#chart g.period').count()).toBe(24);
    expect(await page.locator('#chart text').allTextContents()).toContain('lines per hour');
    expect(await page.locator('#chart g.period[role="img"][aria-label]').count()).toBe(24);
    await page.screenshot({ path: join(SCREENSHOTS, 'journal-hours.png'), fullPage: true });
    await page.getByRole('button', { name: 'Last 30 days' }).click();
  });

  test('lines that read the same are one row, with how many: three notes saved in one turn expired together', async () => {
    const rows = await page
      .locator('#journal tbody tr')
      .evaluateAll((trs) =>
        trs.map((r) => ({ rule: r.getAttribute('data-rule'), lines: r.getAttribute('data-lines'), text: r.textContent })),
      );
    const together = rows.filter((r) => r.rule === 'expiry' && r.lines === '3');
    expect(together).toHaveLength(1);
    expect(together[0]?.text).toContain('×3');
    expect(rows.filter((r) => r.rule === 'expiry').reduce((n, r) => n + Number(r.lines), 0)).toBe(4);
  });

  test('next to go says why each goes where it does, ties included; expiring ones say when', async () => {
    await view(page, 'Next to go', '#next [data-kind="fact"] .evict li');
    const reasons = await page.locator('#next [data-kind="fact"] .evict li .why').allTextContents();
    // The design review the later email superseded goes first (decision 0107), then the current ones.
    expect(reasons[0]).toContain('Superseded by a newer memory');
    expect(reasons[1]).toContain('First current memory in line: the least recently useful unpinned fact memory.');
    expect(reasons[2]).toContain('Last useful at the same instant as the one above: the tie goes by id.');
    expect(reasons[3]).toContain('Goes after the one above: it was useful more recently.');
    const ids = await page
      .locator('#next [data-kind="fact"] .evict li')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
    expect([ids[1], ids[2]]).toEqual([ids[1], ids[2]].sort());
    const expiring = await page.locator('#next [data-kind="session"] .expiring li').allTextContents();
    expect(expiring.length).toBe(2);
    for (const text of expiring) expect(text).toMatch(/expires in \d+ hours/);
    await page.screenshot({ path: join(SCREENSHOTS, 'next-why.png'), fullPage: true });
  });
}
