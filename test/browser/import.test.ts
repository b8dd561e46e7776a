import { randomUUID } from 'node:crypto';
import { param, sql } from '../../lambda/adapters/pg/sql/template.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { axeViolations } from './axe.js';
import { browserForTests } from './browser.js';
import { openPage, type OpenedPage, settled, signIn } from './fixture.js';

/**
 * The page's import screen against the real endpoint, with each `/api/import` call writing one
 * step (`NAABA_IMPORT_CALL_SECONDS=0`), so a file of four large memories takes four calls: a bad
 * file is refused whole with the field named and nothing written; progress shows between calls;
 * Stop ends after the call in flight and Resume goes on without writing twice; a connection lost
 * mid-import is resumed the same way. Every state is checked with axe, in light and dark.
 */

const browser = await browserForTests('the page’s import screen');

/** About `bytes` of distinct text: one memory per import step (a step holds up to 8 KB). */
const text = (i: number, bytes = 5_000) => `Import note ${i}: ${`harbour ${i} ledger `.repeat(bytes / 20)}`.slice(0, bytes);

function exportFile(count: number, createdAt = '2026-11-30T10:00:00.000Z'): string {
  const memories = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    kind: 'fact',
    content: text(i),
    pinned: false,
    createdAt,
    lastUsefulAt: '2026-11-30T10:00:00.000Z',
    recallCount: 0,
    restatements: 1,
    agent: 'laptop',
    client: 'tests',
    origin: null,
    restatedBy: [],
    conflicts: [],
  }));
  return JSON.stringify({ format: 'naaba-memories', version: 1, exportedAt: '2026-12-01T00:00:00.000Z', memories, journal: [] });
}

const asFile = (name: string, body: string) => ({ name, mimeType: 'application/json', buffer: Buffer.from(body) });

if (browser) {
  let endpoint: TestEndpoint;

  beforeAll(async () => {
    endpoint = await startTestEndpoint({ env: { NAABA_IMPORT_CALL_SECONDS: '0' } });
  });
  afterAll(async () => {
    await browser.close();
    await endpoint?.close();
  });

  const stored = async (key: IssuedKey) =>
    (
      await endpoint.sql.query<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM memories WHERE user_id = ${param('userId', key.userId)}`,
      )
    )[0]?.n;

  async function signedIn(key: IssuedKey, options: Parameters<typeof openPage>[2] = {}): Promise<OpenedPage> {
    const opened = await openPage(browser as NonNullable<typeof browser>, endpoint.url, options);
    await signIn(opened.page, key.token);
    return opened;
  }

  /**
   * Holds every `/api/import` call after the first until `release` is called, so that Stop is clicked
   * while a call is in flight whatever the machine's speed: with calls let through on a timer, a slow
   * axe scan let the whole file land before the click.
   */
  async function holdImports(opened: OpenedPage): Promise<() => void> {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    await opened.page.route('**/api/import', async (route) => {
      calls += 1;
      if (calls > 1) await held;
      await route.continue();
    });
    return release;
  }

  test('a bad file is refused whole: the field is named, nothing is written, and axe finds nothing in light or dark', async () => {
    const key = await endpoint.issueKey('bad-files');
    for (const scheme of ['light', 'dark'] as const) {
      const opened = await signedIn(key, { colorScheme: scheme, viewport: { width: 375, height: 800 } });
      const { page } = opened;
      // The file input has its row to itself on a phone, so its own words are not cut in the middle.
      const input = await page.locator('#import-file').boundingBox();
      const row = await page.locator('#import-file').locator('..').boundingBox();
      expect(input?.width ?? 0).toBeGreaterThanOrEqual((row?.width ?? Number.POSITIVE_INFINITY) * 0.95);
      await page.getByLabel('Export file').setInputFiles(asFile('year-zero.json', exportFile(3, '0000-01-01T00:00:00.000Z')));
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const alert = page.locator('#import-error');
      await alert.filter({ hasText: 'Nothing was written' }).waitFor();
      expect(await alert.textContent()).toMatch(/^year-zero\.json was not imported: .*createdAt.*Nothing was written\.$/);
      expect(await page.locator('#import-resume').isHidden()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);

      await page.getByLabel('Export file').setInputFiles(asFile('notes.json', 'not json {'));
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await alert.filter({ hasText: 'notes.json is not JSON' }).waitFor();
      // The browser logs the refused call (400) itself; nothing else went wrong.
      expect(opened.errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
      await opened.close();
    }
    expect(await stored(key)).toBe(0);
  });

  test('progress between calls; Stop ends after the call in flight, Resume finishes without writing twice', async () => {
    const key = await endpoint.issueKey('stop-and-resume');
    const opened = await signedIn(key);
    const { page } = opened;
    const release = await holdImports(opened);
    await page.getByLabel('Export file').setInputFiles(asFile('laptop.json', exportFile(4)));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('#import-state', { hasText: 'of 4 memories in place' }).waitFor();
    expect(await page.locator('#import-progress').isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Stop after this step' }).click();
    release();
    const stopped = await page.locator('#import-state', { hasText: 'Stopped:' }).textContent();
    const inPlace = Number(/(\d) of 4 memories in place/.exec(stopped ?? '')?.[1]);
    expect(inPlace).toBeGreaterThanOrEqual(1);
    expect(inPlace).toBeLessThan(4);
    expect(await stored(key)).toBe(inPlace);
    expect(await page.locator('#import-progress').getAttribute('value')).toBe(String(inPlace));
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('#import-state', { hasText: 'Imported laptop.json' }).waitFor();
    expect(await page.locator('#import-state').textContent()).toBe(
      'Imported laptop.json: 4 memories written, 0 already here, 0 conflict links, 0 journal lines added.',
    );
    expect(await stored(key)).toBe(4);
    await settled(page);
    expect(await page.locator('#kinds [data-kind="fact"] .count').textContent()).toBe('4');
    expect(await axeViolations(page)).toEqual([]);

    // The same file again writes nothing: every memory is already there.
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('#import-state', { hasText: '0 memories written, 4 already here' }).waitFor();
    expect(await stored(key)).toBe(4);
    expect(opened.errors).toEqual([]);
    await opened.close();
  });

  test('a connection lost mid-import keeps what was written and offers Resume, which finishes it', async () => {
    const key = await endpoint.issueKey('lost-connection');
    const opened = await signedIn(key);
    const { page } = opened;
    let calls = 0;
    await page.route('**/api/import', async (route) => {
      calls += 1;
      await (calls === 2 ? route.abort('connectionreset') : route.continue());
    });
    await page.getByLabel('Export file').setInputFiles(asFile('desk.json', exportFile(4)));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const alert = page.locator('#import-error');
    await alert.filter({ hasText: 'The import stopped' }).waitFor();
    expect(await alert.textContent()).toContain('What is written stays (1 of 4 memories in place). Resume goes on');
    expect(await stored(key)).toBe(1);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('#import-state', { hasText: 'Imported desk.json: 4 memories written' }).waitFor();
    expect(await alert.isHidden()).toBe(true);
    expect(await stored(key)).toBe(4);
    // The console's one error is the lost request itself.
    expect(opened.errors.filter((e) => !e.includes('ERR_CONNECTION_RESET'))).toEqual([]);
    await opened.close();
  });
}
