import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../support/clock.js';
import { runCli, type ServeProcess, startServeBinary } from '../support/cli.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { browserForTests } from './browser.js';
import { openPage, signIn, view } from './fixture.js';
import { REALISTIC_CURATION, type RealisticWeek, realisticJudge, seedRealisticWeek, weekStart } from './realistic.js';

/**
 * Export from the page is the file `naaba export` writes, and `naaba import` of it fills another
 * endpoint's memory so that its page shows the same: counts, pins and the conflict side by side.
 */

const browser = await browserForTests('export from the page, import with the CLI');

if (browser) {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-page-export-'));
  let laptop: TestEndpoint;
  // Another machine: `naaba serve` in its own process, over its own data folder (in this process it
  // would install its container for the handlers that serve the laptop's endpoint too).
  let cloud: ServeProcess;
  const cloudData = join(dir, 'cloud');
  let week: RealisticWeek;

  beforeAll(async () => {
    const clock = new ManualClock(weekStart());
    laptop = await startTestEndpoint({ clock, judge: realisticJudge(), env: { NAABA_CURATION: REALISTIC_CURATION } });
    week = await seedRealisticWeek(laptop, clock);
    cloud = await startServeBinary(['--port', '0', '--data', cloudData, '--region', 'eu-central-1'], {
      NAABA_CURATION: REALISTIC_CURATION,
    });
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await laptop?.close();
    await cloud?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the page downloads the file naaba export writes, and exporting changes no usefulness', async () => {
    const before = await laptop.sql.query(sql`SELECT id, recall_count, last_useful_at FROM memories ORDER BY id`);
    const opened = await openPage(browser, laptop.url, { acceptDownloads: true });
    await signIn(opened.page, week.laptop.token);
    const [download] = await Promise.all([
      opened.page.waitForEvent('download'),
      opened.page.getByRole('button', { name: 'Download all as JSON' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^naaba-memories-\d{4}-\d{2}-\d{2}\.json$/);
    await download.saveAs(join(dir, 'page.json'));
    const fromPage = JSON.parse(readFileSync(join(dir, 'page.json'), 'utf8'));
    await opened.page.locator('#status', { hasText: `Downloaded ${fromPage.memories.length} memories` }).waitFor();
    const cli = await runCli(['export', join(dir, 'cli.json'), '--endpoint', `${laptop.url}/mcp`], {
      NAABA_KEY: week.laptop.token,
    });
    expect(cli.code).toBe(0);
    const fromCli = JSON.parse(readFileSync(join(dir, 'cli.json'), 'utf8'));
    expect({ ...fromPage, exportedAt: '' }).toEqual({ ...fromCli, exportedAt: '' });
    expect(fromPage.memories.length).toBeGreaterThan(20);
    expect(fromPage.journal.length).toBeGreaterThan(5);
    expect(await laptop.sql.query(sql`SELECT id, recall_count, last_useful_at FROM memories ORDER BY id`)).toEqual(before);
    expect(opened.errors).toEqual([]);
    await opened.close();
  });

  test('naaba import of that file into another endpoint: its page shows the same memory', async () => {
    const issued = await runCli(['issue-key', 'lea-in-aws', '--data', cloudData, '--region', 'eu-central-1', '--json']);
    const key = JSON.parse(issued.stdout) as { token: string };
    const imported = await runCli(['import', join(dir, 'page.json'), '--endpoint', `${cloud.url}/mcp`], { NAABA_KEY: key.token });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const counts = async (url: string, token: string) => {
      const opened = await openPage(browser, url);
      await signIn(opened.page, token);
      const shown = await opened.page.locator('#kinds [data-kind] .count').allTextContents();
      const totals = await opened.page.locator('#totals').textContent();
      return { opened, shown, totals };
    };
    const here = await counts(laptop.url, week.laptop.token);
    const there = await counts(cloud.url, key.token);
    expect(there.shown).toEqual(here.shown);
    expect(there.totals).toBe(here.totals);
    await view(there.opened.page, 'Memories', '#memories li.memory');
    await there.opened.page.getByLabel('Only conflicting').check();
    await there.opened.page.locator('#list-caption', { hasText: 'Showing 2 of 2' }).waitFor();
    await there.opened.page
      .locator('#memories li.memory')
      .first()
      .getByRole('button', { name: /^Compare/ })
      .click();
    // The other memory is read by id after the click: wait for it before counting.
    await there.opened.page.locator('#compare-pair > li .content').nth(1).waitFor();
    expect(await there.opened.page.locator('#compare-pair > li .content').allTextContents()).toHaveLength(2);
    await here.opened.close();
    await there.opened.close();
  });
}
