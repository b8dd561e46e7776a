import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { ManualClock } from '../support/clock.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { axeViolations } from './axe.js';
import { browserForTests, SCREENSHOTS } from './browser.js';
import { openPage, settled, signIn, view } from './fixture.js';
import { REALISTIC_CURATION, realisticJudge, seedRealisticWeek, weekStart } from './realistic.js';

/**
 * Accessibility and polish of every view, in headless Chromium with axe-core (from npm) injected:
 * no violation at desktop and phone widths, in light and dark; focus lands in the main content
 * after sign-in; user text takes its own direction; invisible characters show; dark mode follows
 * the system; the journal table reads on a phone.
 */

const browser = await browserForTests('accessibility of every view (axe)');

const ZERO_WIDTH = 'The wifi password is pass\u200bword, not password.';

if (browser) {
  let endpoint: TestEndpoint;
  let owner: IssuedKey;
  let empty: IssuedKey;

  beforeAll(async () => {
    const clock = new ManualClock(weekStart());
    endpoint = await startTestEndpoint({ clock, judge: realisticJudge(), env: { NAABA_CURATION: REALISTIC_CURATION } });
    const week = await seedRealisticWeek(endpoint, clock);
    owner = week.laptop;
    const mcp = await connect(endpoint.mcpUrl, owner.token);
    await call(mcp, 'remember', { content: ZERO_WIDTH, kind: 'fact', origin: 'router sticker' });
    await mcp.close();
    empty = await endpoint.issueKey('fresh-start');
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await endpoint?.close();
  });

  /** The views, each opened from the previous state, with what shows it is ready. */
  const VIEWS: [string, (page: Page) => Promise<void>][] = [
    ['overview', async (p) => view(p, 'Overview', '#connect-text:not(:empty)')],
    ['memories', async (p) => view(p, 'Memories', '#memories li.memory')],
    [
      'compare',
      async (p) => {
        await p
          .locator('#memories li.memory')
          .getByRole('button', { name: /^Compare/ })
          .first()
          .click();
        await p.locator('#compare:not([hidden]) #compare-pair li').nth(1).waitFor();
      },
    ],
    [
      'search',
      async (p) => {
        // Typed, not submitted: the search follows the typing.
        await p.getByLabel('Search', { exact: true }).fill('release notes');
        await p.locator('#list-caption:has-text("for “release notes”")').waitFor();
      },
    ],
    [
      'selection',
      async (p) => {
        for (const box of (await p.getByRole('checkbox', { name: /^Select:/ }).all()).slice(0, 3)) await box.check();
        await p.getByRole('region', { name: '3 memories selected' }).waitFor();
      },
    ],
    [
      'select-all',
      async (p) => {
        await p.getByLabel('Select all on this page').check();
        await p.locator('#selection-count:not(:has-text("3 memories selected"))').waitFor();
      },
    ],
    [
      // The filters (folded on a phone) opened, and one set while the search stands.
      'filters',
      async (p) => {
        if (!(await p.locator('#filter-box').evaluate((d) => (d as HTMLDetailsElement).open)))
          await p.locator('#filter-summary').click();
        const drawn = await p.locator('#memories').getAttribute('data-renders');
        await p.getByLabel('Pinned', { exact: true }).selectOption('false');
        await p.locator(`#memories:not([data-renders="${drawn}"])`).waitFor({ state: 'attached' });
        await settled(p);
      },
    ],
    ['journal', async (p) => view(p, 'Forgetting journal', '#journal tbody tr[data-rule]')],
    [
      'journal-hours',
      async (p) => {
        await p.getByRole('button', { name: 'Last 24 hours' }).click();
        await p.locator('#chart svg[aria-label*="per hour"]').waitFor();
      },
    ],
    ['time', async (p) => view(p, 'Over time', '#time figure[data-kind] svg')],
    ['next', async (p) => view(p, 'Next to go', '#next [data-kind] .evict li')],
  ];

  for (const scheme of ['light', 'dark'] as const) {
    for (const [width, height] of [
      [1100, 900],
      [390, 844],
    ] as const) {
      test(`axe finds no violation on any view at ${width} px, ${scheme}`, async () => {
        const opened = await openPage(browser, endpoint.url, { viewport: { width, height }, colorScheme: scheme });
        const found: Record<string, unknown[]> = {};
        const check = async (name: string) => {
          const violations = await axeViolations(opened.page);
          if (violations.length > 0) found[name] = violations;
          await opened.page.screenshot({ path: join(SCREENSHOTS, `a11y-${name}-${width}-${scheme}.png`), fullPage: true });
        };
        await check('sign-in');
        await signIn(opened.page, owner.token);
        for (const [name, open] of VIEWS) {
          await open(opened.page);
          await check(name);
        }
        expect(found).toEqual({});
        expect(await opened.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(opened.errors).toEqual([]);
        await opened.close();
      });
    }
  }

  test('the check can fail: axe reports an image without a text alternative put into the page', async () => {
    const opened = await openPage(browser, endpoint.url);
    await opened.page.evaluate(() =>
      document.getElementById('main')?.append(Object.assign(document.createElement('img'), { src: 'data:,' })),
    );
    expect((await axeViolations(opened.page)).map((v) => v.id)).toContain('image-alt');
    await opened.close();
  });

  test('an empty memory (the onboarding view) has no violation either, at both widths', async () => {
    for (const width of [1100, 375]) {
      const opened = await openPage(browser, endpoint.url, { viewport: { width, height: 800 } });
      await signIn(opened.page, empty.token);
      await opened.page.locator('#connect-text:not(:empty)').waitFor();
      expect(await axeViolations(opened.page)).toEqual([]);
      await view(opened.page, 'Memories', '#empty:not([hidden])');
      expect(await axeViolations(opened.page)).toEqual([]);
      await opened.close();
    }
  });

  test('after sign-in the focus is on the main content’s heading; the sign-in form is inside main', async () => {
    const opened = await openPage(browser, endpoint.url);
    expect(await opened.page.locator('main #sign-in').count()).toBe(1);
    await signIn(opened.page, owner.token);
    await opened.page.waitForFunction(() => document.activeElement?.id === 'h-overview');
    expect(await opened.page.evaluate(() => document.activeElement?.closest('main')?.id)).toBe('main');
    await opened.close();
  });

  test('user text takes its own direction: the Arabic note reads right to left, the rest left to right', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Memories', '#memories li.memory');
    const texts = opened.page.locator('#memories .content, #memories bdi');
    expect(await texts.count()).toBeGreaterThan(20);
    expect(await texts.evaluateAll((nodes) => nodes.every((n) => n.getAttribute('dir') === 'auto'))).toBe(true);
    const directions = await opened.page
      .locator('#memories .content')
      .evaluateAll((nodes) => nodes.map((n) => [n.textContent ?? '', getComputedStyle(n).direction, n.getBoundingClientRect()]));
    const arabic = directions.filter(([text]) => /[\u0600-\u06FF]/.test(String(text)));
    expect(arabic.map(([, direction]) => direction)).toEqual(['rtl']);
    expect(directions.filter(([text]) => !/[\u0600-\u06FF]/.test(String(text))).every(([, d]) => d === 'ltr')).toBe(true);
    await opened.page.locator('#memories li.memory', { hasText: 'كريم' }).screenshot({ path: join(SCREENSHOTS, 'rtl-card.png') });
    await opened.close();
  });

  test('an invisible character is shown where it is, and the card says so', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Memories', '#memories li.memory');
    const card = opened.page.locator('#memories li.memory', { hasText: 'wifi password' });
    expect(await card.locator('.content .invisible').allTextContents()).toEqual(['U+200B']);
    expect(await card.locator('.content .invisible').getAttribute('title')).toContain('zero-width space');
    expect(await card.textContent()).toContain('holds 1 invisible character');
    // What is visible reads "pass", the marker, "word": never the look-alike "password".
    expect(await card.locator('.content').textContent()).toBe('The wifi password is passU+200Bword, not password.');
    await card.screenshot({ path: join(SCREENSHOTS, 'invisible-character.png') });
    await opened.close();
  });

  test('dark mode follows the system setting', async () => {
    const colours: Record<string, string> = {};
    for (const scheme of ['light', 'dark'] as const) {
      const opened = await openPage(browser, endpoint.url, { colorScheme: scheme });
      colours[scheme] = await opened.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      await opened.close();
    }
    const luminance = (rgb: string) => (rgb.match(/\d+/g) ?? []).slice(0, 3).reduce((sum, v) => sum + Number(v), 0) / 3;
    expect(luminance(colours.light ?? '')).toBeGreaterThan(200);
    expect(luminance(colours.dark ?? '')).toBeLessThan(50);
  });

  test('on a phone the journal table shows every value of every line, without scrolling sideways', async () => {
    const opened = await openPage(browser, endpoint.url, { viewport: { width: 375, height: 800 } });
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Forgetting journal', '#journal tbody tr[data-rule]');
    const cells = await opened.page.locator('#journal tbody td').evaluateAll((tds) =>
      tds.map((td) => {
        const box = td.getBoundingClientRect();
        return { left: box.left, right: box.right, width: box.width, label: getComputedStyle(td, '::before').content };
      }),
    );
    expect(cells.length).toBeGreaterThanOrEqual(6 * 4);
    for (const c of cells) {
      expect(c.left).toBeGreaterThanOrEqual(0);
      expect(c.right).toBeLessThanOrEqual(375);
      expect(c.width).toBeGreaterThan(40);
      expect(c.label).toMatch(/^"(When|Kind|Rule|Age|Recalls|Lines): "$/);
    }
    await opened.page.locator('#journal').screenshot({ path: join(SCREENSHOTS, 'journal-table-375px.png') });
    await opened.close();
  });

  /** Every text of the charts in view, at the size it renders in CSS pixels (its font size times the SVG's scale). */
  const chartLabels = (page: Page, selector: string) =>
    page
      .locator(`${selector} svg text`)
      .evaluateAll((texts) =>
        (texts as SVGTextElement[]).map((t) => (t.getScreenCTM()?.a ?? 0) * Number.parseFloat(getComputedStyle(t).fontSize)),
      );

  test('on a phone (390 px) the journal caption spans the width, and chart labels and the picture over time read at 12 px', async () => {
    const opened = await openPage(browser, endpoint.url, { viewport: { width: 390, height: 844 } });
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Forgetting journal', '#journal tbody tr[data-rule]');
    // Before: 55 px wide and 443 px tall, one word a line.
    const caption = await opened.page.locator('#journal caption').boundingBox();
    expect(caption?.width).toBeGreaterThan(330);
    expect(caption?.height).toBeLessThan(100);
    const journal = await chartLabels(opened.page, '#chart');
    expect(journal.length).toBeGreaterThanOrEqual(5);
    expect(Math.min(...journal)).toBeGreaterThanOrEqual(11.5);
    await opened.page.getByRole('button', { name: 'Last 24 hours' }).click();
    await opened.page.locator('#chart svg[aria-label*="per hour"]').waitFor();
    expect(Math.min(...(await chartLabels(opened.page, '#chart')))).toBeGreaterThanOrEqual(11.5);
    await view(opened.page, 'Over time', '#time figure[data-kind] svg');
    const picture = await chartLabels(opened.page, '#time');
    expect(picture.length).toBeGreaterThanOrEqual(5 * 4);
    expect(Math.min(...picture)).toBeGreaterThanOrEqual(11.5);
    expect(await opened.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await opened.page.locator('#view-time').screenshot({ path: join(SCREENSHOTS, 'time-390.png') });
    expect(opened.errors).toEqual([]);
    await opened.close();
  });

  test('the picture over time tells each kind against its ceiling and what went by which rule, as the journal counts it', async () => {
    const opened = await openPage(browser, endpoint.url);
    await signIn(opened.page, owner.token);
    await view(opened.page, 'Over time', '#time figure[data-kind] svg');
    const overview = await opened.page.evaluate(async (token) => {
      const r = await fetch('api/overview', { headers: { authorization: `Bearer ${token}` } });
      return (await r.json()) as { kinds: { kind: string; count: number; ceiling: number }[] };
    }, owner.token);
    const daily = await opened.page.evaluate(async (token) => {
      const r = await fetch('api/journal/daily?days=30', { headers: { authorization: `Bearer ${token}` } });
      return (await r.json()) as { days: Record<string, number>[] };
    }, owner.token);
    const figures = opened.page.locator('#time figure[data-kind]');
    expect(await figures.evaluateAll((fs) => fs.map((f) => (f as HTMLElement).dataset.kind))).toEqual(
      overview.kinds.map((k) => k.kind),
    );
    for (const k of overview.kinds) {
      const text = await opened.page.locator(`#time figure[data-kind="${k.kind}"] figcaption`).textContent();
      expect(text).toMatch(new RegExp(`^${k.kind}: ${k.count} of ${k.ceiling} now, \\d+ at the end of \\w+ \\d+; `));
      expect(await opened.page.locator(`#time figure[data-kind="${k.kind}"] svg`).getAttribute('aria-label')).toBe(text);
    }
    // Every bar of the picture, summed per rule, is the journal's own count over the same 30 days.
    const drawn = await opened.page.locator('#time rect.bar').evaluateAll((bars) =>
      bars.reduce<Record<string, number>>((sums, b) => {
        const { rule = '', count = '0' } = (b as SVGElement).dataset;
        sums[rule] = (sums[rule] ?? 0) + Number(count);
        return sums;
      }, {}),
    );
    const counted = Object.fromEntries(
      ['ceiling', 'expiry', 'duplicate', 'superseded']
        .map((rule) => [rule, daily.days.reduce((n, d) => n + (d[rule] ?? 0), 0)] as const)
        .filter(([, n]) => n > 0),
    );
    expect(Object.keys(counted).length).toBeGreaterThan(0);
    expect(drawn).toEqual(counted);
    await opened.page.locator('#view-time').screenshot({ path: join(SCREENSHOTS, 'time-1100.png') });
    await opened.close();
  });
}
