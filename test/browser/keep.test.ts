import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { sweepRegion } from '../../lambda/region-sweep.js';
import { ManualClock } from '../support/clock.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { ScriptedJudge } from '../support/judges.js';
import { browserForTests, SCREENSHOTS } from './browser.js';
import { axeViolations } from './axe.js';
import { type OpenedPage, openPage, signIn, view } from './fixture.js';

/**
 * Keeping from the page: pin and unpin from the list and from "next to go", through the same
 * service (and store rules) as the MCP tools, within the pin limit, without making anything
 * useful; conflicts side by side with the other memory read by id, only the caller's; search
 * that says when nothing relates and tells relevance in words.
 */

const CURATION = JSON.stringify({ kinds: { fact: { ceiling: 4 }, session: { ceiling: 5, ttl: '2h' } }, pin_limit: 2 });
const REVIEW_A = 'The design review is on Wednesdays at 10:00.';
const REVIEW_B = 'The design review moved to Thursdays at 10:00.';
const FACTS = ['The ferry to Lamu leaves at nine.', 'Amina prefers tea without sugar.', REVIEW_A, REVIEW_B];
const SESSION = 'Bisecting build 4412 this afternoon.';

interface Row {
  id: string;
  content: string;
  pinned: boolean;
  expires: boolean;
  recall_count: number;
  last_useful_at: string;
}

const browser = await browserForTests('keeping, comparing and searching from the page');

if (browser) {
  const clock = new ManualClock(Date.now() - 3 * 3600_000);
  let endpoint: TestEndpoint;
  let owner: IssuedKey;
  let client: Client;
  let opened: OpenedPage;
  let page: Page;
  const ids = new Map<string, string>();

  const rows = () =>
    endpoint.sql.query<Row>(sql`SELECT id::text AS id, content, pinned, expires, recall_count, last_useful_at::text AS last_useful_at
         FROM memories WHERE user_id = ${param('owner.userId', owner.userId)} ORDER BY content`);
  const row = async (content: string) => (await rows()).find((r) => r.content === content);
  const card = (content: string) => page.locator('#memories li.memory', { hasText: content });

  beforeAll(async () => {
    const judge = new ScriptedJudge((a, b) =>
      a.includes('design review') && b.includes('design review') ? 'contradicts' : 'different',
    );
    endpoint = await startTestEndpoint({ clock, judge, env: { NAABA_CURATION: CURATION } });
    owner = await endpoint.issueKey('page-owner');
    client = await connect(endpoint.mcpUrl, owner.token, { name: 'browser-tests', version: '1.0.0' });
    const remember = async (content: string, kind: string, extra: Record<string, unknown> = {}) => {
      const { structuredContent } = await call<{ id: string }>(client, 'remember', { content, kind, ...extra });
      ids.set(content, structuredContent.id);
      clock.advance(60);
    };
    await remember(SESSION, 'session', { pinned: true });
    for (const content of FACTS) await remember(content, 'fact', content === REVIEW_B ? { origin: 'email from Amina' } : {});
    clock.advance(2.9 * 3600);
    opened = await openPage(browser, endpoint.url);
    page = opened.page;
    await signIn(page, owner.token);
  });
  afterAll(async () => {
    await opened?.close();
    await browser.close();
    await client?.close();
    await endpoint?.close();
  });

  test('pin from the list: the card says pinned, the counts follow, and nothing became more useful', async () => {
    const before = await rows();
    await view(page, 'Memories', '#memories li.memory');
    await card(FACTS[0]!).getByRole('button', { name: /^Pin:/ }).click();
    await page.locator('#status', { hasText: 'Pinned' }).waitFor();
    await card(FACTS[0]!).locator('.tag.pinned').waitFor();
    expect((await row(FACTS[0]!))?.pinned).toBe(true);
    // Looking and keeping are not recalling: every recall count and last-useful time is as before.
    expect((await rows()).map((r) => [r.id, r.recall_count, r.last_useful_at])).toEqual(
      before.map((r) => [r.id, r.recall_count, r.last_useful_at]),
    );
    const { structuredContent } = await call<{ counts: { pinned: number } }>(client, 'curation_state', {});
    expect(structuredContent.counts.pinned).toBe(2);
    await page.screenshot({ path: join(SCREENSHOTS, 'keep-pinned.png'), fullPage: true });
  });

  test('the pin limit shows, and the page offers no pin past it; the API refuses one as the tools do', async () => {
    expect(await page.locator('#pin-note').textContent()).toContain('2 of 2 pinned: the pin limit');
    // The button itself says why it is off: a phone shows no tooltip.
    const off = card(FACTS[1]!).getByRole('button', { name: /^Pin/ });
    expect([await off.isDisabled(), await off.textContent()]).toEqual([true, 'Pin (limit reached)']);
    const refused = await page.evaluate(
      async ([id, token]) => {
        const r = await fetch(`api/memories/${id}/pin`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });
        return { status: r.status, body: await r.json() };
      },
      [ids.get(FACTS[1]!), owner.token] as const,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('pin limit reached (2 pinned memories)');
    expect((await row(FACTS[1]!))?.pinned).toBe(false);
  });

  test('a pinned memory is kept by the same rules the tools follow: the ceiling takes a superseded one first, then an unpinned one', async () => {
    const { structuredContent } = await call<{ outcome: string; evicted: number }>(client, 'remember', {
      content: 'The night market closes at eleven.',
      kind: 'fact',
    });
    expect([structuredContent.outcome, structuredContent.evicted]).toEqual(['stored', 1]);
    expect(await row(FACTS[0]!)).toBeDefined();
    // REVIEW_B superseded REVIEW_A (decision 0107): the superseded memory goes first.
    expect(await row(REVIEW_A)).toBeUndefined();
    // The review moves back: the new statement supersedes REVIEW_B, and the ceiling takes the least recently useful unpinned one.
    const back = await call<{ id: string; outcome: string; supersedes: string; evicted: number }>(client, 'remember', {
      content: REVIEW_A,
      kind: 'fact',
    });
    expect([back.structuredContent.outcome, back.structuredContent.supersedes, back.structuredContent.evicted]).toEqual([
      'superseded',
      ids.get(REVIEW_B),
      1,
    ]);
    ids.set(REVIEW_A, back.structuredContent.id);
    expect(await row(FACTS[0]!)).toBeDefined();
    expect(await row(FACTS[1]!)).toBeUndefined();
  });

  test('unpin from the list, then pin from "next to go": what is pinned leaves the line', async () => {
    await view(page, 'Memories', '#memories li.memory');
    await card(FACTS[0]!)
      .getByRole('button', { name: /^Unpin:/ })
      .click();
    await page.locator('#status', { hasText: 'Unpinned' }).waitFor();
    expect((await row(FACTS[0]!))?.pinned).toBe(false);
    await view(page, 'Next to go', '#next [data-kind="fact"] .evict li');
    const line = page.locator('#next [data-kind="fact"] .evict li');
    // The superseded memory is first in line and says why; then the least recently useful.
    expect(await line.first().getAttribute('data-id')).toBe(ids.get(REVIEW_B));
    expect(await line.first().locator('.why').textContent()).toContain('Superseded by a newer memory');
    const first = line.nth(1);
    const id = await first.getAttribute('data-id');
    expect(id).toBe(ids.get(FACTS[0]!));
    await first.getByRole('button', { name: /^Pin:/ }).click();
    await page.locator('#status', { hasText: 'Pinned' }).waitFor();
    await page.locator(`#next .evict li[data-id="${id}"]`).waitFor({ state: 'detached' });
    expect((await row(FACTS[0]!))?.pinned).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'keep-next.png'), fullPage: true });
  });

  test('unpinning a session memory long past its time to live asks first; then it expires and the journal says so', async () => {
    await view(page, 'Memories', '#memories li.memory');
    await card(SESSION)
      .getByRole('button', { name: /^Unpin:/ })
      .click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('unpinned it expires at once');
    await dialog.getByRole('button', { name: 'Unpin it' }).click();
    await page.locator('#status', { hasText: 'Unpinned' }).waitFor();
    expect(await row(SESSION)).toMatchObject({ pinned: false, expires: true });
    await sweepRegion(endpoint.container);
    expect(await row(SESSION)).toBeUndefined();
    await view(page, 'Forgetting journal', '#journal tbody tr[data-rule="expiry"]');
  });

  test('conflicts side by side: the other memory is read by id even when it is not on the page', async () => {
    await view(page, 'Memories', '#memories li.memory');
    await page.getByLabel('Origin contains').fill('email');
    await page.getByLabel('Origin contains').press('Enter');
    await page.locator('#list-caption', { hasText: 'Showing 1 of 1' }).waitFor();
    expect(await card(REVIEW_A).count()).toBe(0);
    opened.requests.length = 0;
    await card(REVIEW_B)
      .getByRole('button', { name: /^Compare/ })
      .click();
    const pair = page.locator('#compare:not([hidden]) #compare-pair > li');
    await pair.nth(1).waitFor();
    expect(await pair.locator('.content').allTextContents()).toEqual([REVIEW_B, REVIEW_A]);
    expect(opened.requests.some((u) => u.endsWith(`/api/memories/${ids.get(REVIEW_A)}`))).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('compare');
    await page.screenshot({ path: join(SCREENSHOTS, 'compare.png'), fullPage: true });
  });

  test('the other memory is the caller’s only: another key reads it as if it did not exist', async () => {
    const stranger = await endpoint.issueKey('stranger');
    const other = await openPage(browser, endpoint.url);
    await signIn(other.page, stranger.token);
    const answer = await other.page.evaluate(
      async ([id, token]) => {
        const r = await fetch(`api/memories/${id}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: r.status, text: await r.text() };
      },
      [ids.get(REVIEW_A), stranger.token] as const,
    );
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('design review');
    await other.close();
  });

  test('when the other side was forgotten, the comparison says it is gone', async () => {
    await call(client, 'forget', { ids: [ids.get(REVIEW_A)] });
    await card(REVIEW_B)
      .getByRole('button', { name: /^Compare/ })
      .click();
    await page.locator('#compare-pair', { hasText: 'The other memory is gone' }).waitFor();
    await page.getByRole('button', { name: 'Close comparison' }).click();
  });

  test('search tells relevance in words, never raw scores', async () => {
    await page.getByLabel('Origin contains').fill('');
    await page.getByLabel('Origin contains').press('Enter');
    await page.getByLabel('Search', { exact: true }).fill('ferry Lamu');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#list-caption', { hasText: /^Best \d+ of \d+ memories for/ }).waitFor();
    const first = page.locator('#memories li.memory').first();
    expect(await first.locator('.content').textContent()).toBe(FACTS[0]);
    expect(await first.locator('.relevance').textContent()).toMatch(
      /^Match: (very close in meaning|close in meaning|related|a weak match)$/,
    );
    const text = (await page.locator('#memories').textContent()) ?? '';
    expect(text).not.toMatch(/\d\.\d{2,}/);
  });

  // Recall's relevance floor (decision 0058) holds for this search too: nothing relates, nothing listed.
  test('search with nothing related says so, with nothing listed (the recall relevance floor)', async () => {
    await page.getByLabel('Search', { exact: true }).fill('qxzvbnm plokijuh wertzuiop');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#empty:not([hidden])', { hasText: 'Nothing found for' }).waitFor();
    expect(await page.locator('#memories li').count()).toBe(0);
  });

  const unchangedUsefulness = async (action: () => Promise<void>) => {
    const before = (await rows()).map((r) => [r.id, r.recall_count, r.last_useful_at]);
    await action();
    expect((await rows()).map((r) => [r.id, r.recall_count, r.last_useful_at])).toEqual(before);
  };

  test('search as you type: one search after a pause, "best N of M", and no recall counted', async () => {
    // The page's own clock, paused: keys typed in any rhythm ask nothing until the pause has passed.
    const typing = await openPage(browser, endpoint.url);
    await typing.page.clock.install();
    await typing.page.reload();
    await signIn(typing.page, owner.token);
    await view(typing.page, 'Memories', '#memories li.memory');
    const total = Number((await typing.page.locator('#totals').textContent())?.match(/^(\d+) memories kept/)?.[1]);
    await unchangedUsefulness(async () => {
      await typing.page.clock.pauseAt(Date.now() + 60_000);
      typing.requests.length = 0;
      await typing.page.getByLabel('Search', { exact: true }).pressSequentially('ferry Lamu');
      await typing.page.clock.runFor(250);
      expect(typing.requests.filter((u) => u.includes('/api/search'))).toEqual([]);
      await typing.page.clock.runFor(100);
      const caption = typing.page.locator('#list-caption', { hasText: 'for “ferry Lamu”' });
      await caption.waitFor();
      expect(typing.requests.filter((u) => u.includes('/api/search'))).toHaveLength(1);
      expect(await caption.textContent()).toMatch(new RegExp(`^Best \\d+ of ${total} memories for “ferry Lamu”, best first`));
      expect(await typing.page.locator('#memories li.memory .content').first().textContent()).toBe(FACTS[0]);
      // Emptying the box lists every memory again.
      await typing.page.getByLabel('Search', { exact: true }).fill('');
      await typing.page.clock.runFor(400);
      await typing.page.locator('#list-caption', { hasText: /^Showing/ }).waitFor();
    });
    expect(typing.errors).toEqual([]);
    await typing.close();
  });

  test('select several: pin is off past the pin limit and says why in text; within it, pins all at once', async () => {
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await view(page, 'Memories', '#memories li.memory');
    const night = 'The night market closes at eleven.';
    expect((await rows()).filter((r) => r.pinned).map((r) => r.content)).toEqual([FACTS[0]]);
    await card(night)
      .getByRole('checkbox', { name: /^Select:/ })
      .check();
    await card(REVIEW_B)
      .getByRole('checkbox', { name: /^Select:/ })
      .check();
    const bar = page.getByRole('region', { name: '2 memories selected' });
    await bar.waitFor();
    expect(await bar.getByRole('button', { name: 'Pin 2' }).isDisabled()).toBe(true);
    expect(await page.locator('#selection-why').isVisible()).toBe(true);
    expect(await page.locator('#selection-why').textContent()).toContain(
      'Pin is off: pinning 2 would pass the pin limit (1 of 2 pinned, 1 free).',
    );
    await card(REVIEW_B)
      .getByRole('checkbox', { name: /^Select:/ })
      .uncheck();
    await unchangedUsefulness(async () => {
      await page.getByRole('region', { name: '1 memory selected' }).getByRole('button', { name: 'Pin 1' }).click();
      await page.locator('#status', { hasText: 'Pinned 1 memory' }).waitFor();
    });
    expect((await rows()).filter((r) => r.pinned).map((r) => r.content)).toEqual([night, FACTS[0]].sort());
    expect(await page.locator('#selection').isHidden()).toBe(true);
  });

  test('several at once is all or none: a gone memory or the pin limit changes nothing', async () => {
    const post = (path: string, body: unknown) =>
      page.evaluate(
        async ([path, body, token]) => {
          const r = await fetch(path, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: r.status, body: await r.json() };
        },
        [path, body, owner.token] as const,
      );
    const pinnedNow = async () => (await rows()).filter((r) => r.pinned).map((r) => r.content);
    const before = await pinnedNow();
    // Unpinning a pinned memory with one already forgotten: refused whole.
    const gone = await post('api/pins', { ids: [ids.get(FACTS[0]!), ids.get(REVIEW_A)], pinned: false });
    expect(gone.status).toBe(404);
    const full = await post('api/pins', { ids: [ids.get(REVIEW_B)], pinned: true });
    expect([full.status, full.body.error]).toEqual([400, expect.stringContaining('pin limit reached')]);
    expect(await post('api/pins', { ids: [ids.get(REVIEW_B), 'not-an-id'], pinned: true })).toMatchObject({ status: 400 });
    expect(await post('api/forget', { ids: [ids.get(REVIEW_B), 'not-an-id'] })).toMatchObject({ status: 400 });
    expect(await pinnedNow()).toEqual(before);
    expect(await row(REVIEW_B)).toBeDefined();
  });

  test('several at once are the caller’s only: another key pins and forgets none of them', async () => {
    const stranger = await endpoint.issueKey('selection-stranger');
    const before = await rows();
    const answers = await page.evaluate(
      async ([ids, token]) => {
        const post = async (path: string, body: unknown) => {
          const r = await fetch(path, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: r.status, text: await r.text() };
        };
        return [await post('api/pins', { ids, pinned: false }), await post('api/forget', { ids })];
      },
      [before.map((r) => r.id), stranger.token] as const,
    );
    expect(answers[0]?.status).toBe(404);
    expect([answers[1]?.status, JSON.parse(answers[1]?.text ?? '{}').count]).toEqual([200, 0]);
    expect(answers.map((a) => a.text).join('')).not.toContain('night market');
    expect(await rows()).toEqual(before);
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`at the pin limit on a phone (390 px, ${scheme}) the text says why Pin is off, in the list and in "next to go"`, async () => {
      const phone = await openPage(browser, endpoint.url, { viewport: { width: 390, height: 844 }, colorScheme: scheme });
      await signIn(phone.page, owner.token);
      await view(phone.page, 'Memories', '#memories li.memory');
      const off = phone.page.locator('#memories li.memory', { hasText: REVIEW_B }).getByRole('button', { name: /^Pin/ });
      expect([await off.isDisabled(), await off.textContent(), await off.isVisible()]).toEqual([
        true,
        'Pin (limit reached)',
        true,
      ]);
      expect(await phone.page.locator('#pin-note').textContent()).toBe('2 of 2 pinned: the pin limit. Unpin one to pin another.');
      await phone.page.screenshot({ path: join(SCREENSHOTS, `pin-limit-list-390-${scheme}.png`), fullPage: true });
      await view(phone.page, 'Next to go', '#next [data-kind="fact"] .evict li');
      const note = phone.page.locator('#next-pins');
      expect(await note.isVisible()).toBe(true);
      expect(await note.textContent()).toContain('Pin is off: 2 of 2 memories are pinned, the pin limit.');
      const buttons = phone.page.locator('#next .evict li').getByRole('button', { name: /^Pin/ });
      expect(await buttons.count()).toBeGreaterThan(0);
      for (const b of await buttons.all()) {
        expect([await b.isDisabled(), await b.textContent(), await b.getAttribute('aria-describedby')]).toEqual([
          true,
          'Pin (limit reached)',
          'next-pins',
        ]);
      }
      expect(await axeViolations(phone.page)).toEqual([]);
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.page.screenshot({ path: join(SCREENSHOTS, `pin-limit-next-390-${scheme}.png`), fullPage: true });
      // What to do about it is one tap away: the pinned memories, where each can be unpinned.
      await note.getByRole('button', { name: 'Show pinned memories' }).click();
      await phone.page.locator('#list-caption', { hasText: 'Showing 2 of 2 memories that match the filters' }).waitFor();
      expect(phone.errors).toEqual([]);
      await phone.close();
    });
  }

  test('forget several: asks first, Cancel keeps them, Forget takes them all', async () => {
    await view(page, 'Memories', '#memories li.memory');
    await card(REVIEW_B)
      .getByRole('checkbox', { name: /^Select:/ })
      .check();
    await card(FACTS[0]!)
      .getByRole('checkbox', { name: /^Select:/ })
      .check();
    const bar = page.getByRole('region', { name: '2 memories selected' });
    await bar.getByRole('button', { name: 'Forget 2' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('Forget 2 memories (fact)? This cannot be undone.');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'forget-selected-confirm.png') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row(REVIEW_B)).toBeDefined();
    await bar.getByRole('button', { name: 'Forget 2' }).click();
    await dialog.getByRole('button', { name: 'Forget 2' }).click();
    await page.locator('#status', { hasText: 'Forgot 2 memories' }).waitFor();
    expect([await row(REVIEW_B), await row(FACTS[0]!)]).toEqual([undefined, undefined]);
  });
}
