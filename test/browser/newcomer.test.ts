import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { ManualClock } from '../support/clock.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { browserForTests, SCREENSHOTS } from './browser.js';
import { type OpenedPage, openPage, settled, signIn, view } from './fixture.js';
import { REALISTIC_CURATION, realisticJudge, seedRealisticWeek, weekStart } from './realistic.js';

/**
 * What a newcomer hit on the page (issue 49), each held: search keeps every filter the controls
 * show; a supersession pair's Compare offers to forget the correction and refuses Pin on the
 * replaced memory with the reason; "next to go" offers no Pin on a superseded memory; a phone's
 * first screen of Memories shows a memory; a page of memories is selected at once; the picture over
 * time reads for a kind of a few memories.
 */

const browser = await browserForTests('what a newcomer hit on the page');

const OLDER = 'The design review is on Wednesdays at 10:00.';
const NEWER = 'The design review moved to Thursdays at 10:00.';

if (browser) {
  let endpoint: TestEndpoint;
  let owner: IssuedKey;
  let ids: Map<string, string>;

  beforeAll(async () => {
    const clock = new ManualClock(weekStart());
    endpoint = await startTestEndpoint({ clock, judge: realisticJudge(), env: { NAABA_CURATION: REALISTIC_CURATION } });
    const week = await seedRealisticWeek(endpoint, clock);
    owner = week.laptop;
    ids = week.ids;
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await endpoint?.close();
  });

  const opened: OpenedPage[] = [];
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      expect(o.errors).toEqual([]);
      await o.close();
    }
  });

  async function signedIn(width = 1100, height = 900): Promise<Page> {
    const o = await openPage(browser as Browser, endpoint.url, { viewport: { width, height } });
    opened.push(o);
    await signIn(o.page, owner.token);
    return o.page;
  }

  /** The agent each card on screen names (its first `bdi`: "by <agent> · <client>"). */
  const agentsShown = (page: Page) =>
    page.locator('#memories li.memory').evaluateAll((cards) => cards.map((c) => c.querySelector('.meta bdi')?.textContent));

  /** The agents of what the API's search finds with no filter: the search the page must not fall back to. */
  const unfilteredAgents = (page: Page) =>
    page.evaluate(
      async ([query, token]) => {
        const r = await fetch(`api/search?${new URLSearchParams({ q: query, limit: '20' })}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return ((await r.json()) as { memories: { agent: string }[] }).memories.map((m) => m.agent);
      },
      ['release notes', owner.token] as const,
    );

  test('search as you type keeps the Agent and Pinned filters the controls show, and the summary names them', async () => {
    const page = await signedIn();
    await view(page, 'Memories', '#memories li.memory');
    // Without the filter the laptop's memories are found too: a search that dropped the filter would show them.
    expect(await unfilteredAgents(page)).toContain('lea-laptop');
    await page.getByLabel('Agent', { exact: true }).selectOption('lea-cursor');
    await settled(page);
    await page.getByLabel('Search', { exact: true }).fill('release notes');
    await page.locator('#list-caption:has-text("that match the filters for “release notes”")').waitFor();
    const agents = await agentsShown(page);
    expect(agents.length).toBeGreaterThan(0);
    expect(new Set(agents)).toEqual(new Set(['lea-cursor']));
    // A filter changed during a search searches again under it: the pinned memory found goes with "Not pinned".
    const PINNED = 'Léa prefers small pull requests';
    await page.getByLabel('Search', { exact: true }).fill('small pull requests');
    await page.locator('#list-caption:has-text("that match the filters for “small pull requests”")').waitFor();
    expect(await page.locator('#memories li.memory', { hasText: PINNED }).locator('.tag.pinned').count()).toBe(1);
    const drawn = await page.locator('#memories').getAttribute('data-renders');
    await page.getByLabel('Pinned', { exact: true }).selectOption('false');
    await page.locator(`#memories:not([data-renders="${drawn}"])`).waitFor({ state: 'attached' });
    await settled(page);
    expect(await page.locator('#filter-summary').textContent()).toBe('Kind, order and filters: agent, pinned set');
    expect(await page.locator('#memories li.memory', { hasText: PINNED }).count()).toBe(0);
    expect(await page.locator('#memories li.memory .tag.pinned').count()).toBe(0);
    expect(await page.locator('#empty').textContent()).toContain(
      '“small pull requests” among the memories that match the filters',
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'search-filtered.png'), fullPage: true });
  });

  test('"next to go" offers no Pin on a superseded memory, and says why in text', async () => {
    const page = await signedIn();
    await view(page, 'Next to go', '#next [data-kind="fact"] .evict li');
    const first = page.locator('#next [data-kind="fact"] .evict li').first();
    expect(await first.getAttribute('data-id')).toBe(ids.get(OLDER));
    expect(await first.getByRole('button', { name: /^Pin:/ }).count()).toBe(0);
    const refused = first.getByRole('button', { name: /^Pin \(replaced\):/ });
    expect(await refused.isDisabled()).toBe(true);
    const note = await refused.getAttribute('aria-describedby');
    expect(await page.locator(`#${note}`).textContent()).toContain('recall never returns it');
    // The current memories after it can be pinned.
    expect(
      await page.locator('#next [data-kind="fact"] .evict li').nth(1).getByRole('button', { name: /^Pin:/ }).isEnabled(),
    ).toBe(true);
  });

  test('on a 390 px phone the first screen of Memories shows a memory; the folded filters open', async () => {
    const page = await signedIn(390, 844);
    await view(page, 'Memories', '#memories li.memory');
    const first = await page.locator('#memories li.memory').first().boundingBox();
    expect(first?.y).toBeLessThan(844 - 100);
    expect(await page.getByLabel('Agent', { exact: true }).isVisible()).toBe(false);
    await page.screenshot({ path: join(SCREENSHOTS, 'memories-390-first-screen.png') });
    await page.locator('#filter-summary').click();
    expect(await page.getByLabel('Agent', { exact: true }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  test('select all ticks every memory on the page, and only those; unticking clears the selection', async () => {
    const page = await signedIn();
    await view(page, 'Memories', '#memories li.memory');
    const shown = await page.locator('#memories li.memory').count();
    await page.getByLabel('Select all on this page').check();
    expect(await page.locator('#selection-count').textContent()).toBe(`${shown} memories selected`);
    const boxes = page.getByRole('checkbox', { name: /^Select:/ });
    expect(await boxes.evaluateAll((bs) => bs.every((b) => (b as HTMLInputElement).checked))).toBe(true);
    // One replaced memory is among them: Pin for the selection is off and says so.
    expect(await page.locator('#pin-selected').isDisabled()).toBe(true);
    expect(await page.locator('#selection-why').textContent()).toContain('replaced by a newer memory');
    await boxes.first().uncheck();
    expect(await page.getByLabel('Select all on this page').evaluate((b) => (b as HTMLInputElement).indeterminate)).toBe(true);
    // Half ticked, it ticks the whole page again; then clears it.
    await page.getByLabel('Select all on this page').check();
    expect(await page.locator('#selection-count').textContent()).toBe(`${shown} memories selected`);
    await page.getByLabel('Select all on this page').uncheck();
    expect(await page.locator('#selection').isHidden()).toBe(true);
    expect(await boxes.evaluateAll((bs) => bs.some((b) => (b as HTMLInputElement).checked))).toBe(false);
  });

  test.each([390, 1100])('over time at %i px: every kind has ticks past 0 and its line spans the scale', async (width) => {
    const page = await signedIn(width, 900);
    await view(page, 'Over time', '#time figure[data-kind] svg');
    const pictures = await page.locator('#time figure[data-kind] svg').evaluateAll((svgs) =>
      svgs.map((s) => {
        const ticks = [...s.querySelectorAll('text.tick')].map((t) => Number(t.textContent));
        const grid = [...s.querySelectorAll('line.grid-line')].map((l) => Number(l.getAttribute('y1')));
        const ys = (s.querySelector('polyline.held')?.getAttribute('points') ?? '')
          .split(' ')
          .map((p) => Number(p.split(',')[1]));
        const zero = grid[0] ?? 0;
        const top = grid.at(-1) ?? 0;
        return { kind: s.closest('figure')?.getAttribute('data-kind'), ticks, reach: (zero - Math.min(...ys)) / (zero - top) };
      }),
    );
    expect(pictures.length).toBe(5);
    for (const p of pictures) {
      expect([p.kind, p.ticks.length >= 3, p.ticks[0]]).toEqual([p.kind, true, 0]);
      // The highest the kind held reaches well up the scale: a few memories are no flat line under a far ceiling.
      expect([p.kind, p.reach >= 0.4]).toEqual([p.kind, true]);
    }
    await page.locator('#view-time').screenshot({ path: join(SCREENSHOTS, `time-small-kinds-${width}.png`) });
  });

  test('a supersession pair’s Compare offers “the older one is right: forget the correction”, and refuses Pin on the replaced one', async () => {
    const page = await signedIn();
    await view(page, 'Memories', '#memories li.memory');
    await page
      .locator('#memories li.memory', { hasText: OLDER })
      .getByRole('button', { name: /^Compare/ })
      .click();
    const pair = page.locator('#compare:not([hidden]) #compare-pair li.memory');
    await pair.nth(1).waitFor();
    expect(await page.locator('#compare-hint').textContent()).toContain('If the older is right, forget the correction');
    const older = pair.filter({ hasText: OLDER });
    const refused = older.getByRole('button', { name: /^Pin \(replaced\):/ });
    expect(await refused.isDisabled()).toBe(true);
    expect(await older.locator('.pin-refused').textContent()).toContain('a pin would only hold a pin slot');
    await page.screenshot({ path: join(SCREENSHOTS, 'compare-supersession.png'), fullPage: true });
    await page.getByRole('button', { name: 'The older one is right: forget the correction' }).click();
    expect(await page.locator('#confirm-text').textContent()).toContain(NEWER);
    await page.locator('#confirm-ok').click();
    await page.locator('#status', { hasText: 'Forgotten.' }).waitFor();
    await settled(page);
    // Read from here, not the page: the newer memory's 404 would be a console error there.
    const get = (id: string) =>
      fetch(`${endpoint.url}/api/memories/${id}`, { headers: { authorization: `Bearer ${owner.token}` } });
    const olderNow = (await (await get(ids.get(OLDER) ?? '')).json()) as {
      memory: { supersededBy: string | null; outlook: { pin: { allowed: boolean } } };
    };
    const now = {
      older: olderNow.memory.supersededBy,
      olderPin: olderNow.memory.outlook.pin.allowed,
      newer: (await get(ids.get(NEWER) ?? '')).status,
    };
    expect(now).toEqual({ older: null, olderPin: true, newer: 404 });
    const card = page.locator('#memories li.memory', { hasText: OLDER });
    expect(await card.locator('.tag', { hasText: 'replaced by a newer memory' }).count()).toBe(0);
    expect(await card.getByRole('button', { name: /^Pin:/ }).isEnabled()).toBe(true);
  });
}
