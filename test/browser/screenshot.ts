import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { environment } from '../../lambda/config/env.js';
import { ManualClock } from '../support/clock.js';
import { startTestEndpoint } from '../support/endpoint.js';
import { REALISTIC_CURATION, realisticJudge, seedRealisticWeek, weekStart } from './realistic.js';

/**
 * `npm run screenshot`: the README's picture of the memory page, made from a realistic week of
 * memory (test/browser/realistic.ts) on the real local server in headless Chromium. Writes
 * docs/images/memory-page.png (the memories) and docs/images/memory-journal.png (the journal).
 */
const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));

const clock = new ManualClock(weekStart());
const endpoint = await startTestEndpoint({ clock, judge: realisticJudge(), env: { NAABA_CURATION: REALISTIC_CURATION } });
const browser = await chromium.launch({
  executablePath: environment().NAABA_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const week = await seedRealisticWeek(endpoint, clock);
  const context = await browser.newContext({
    viewport: { width: 1100, height: 1500 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
  });
  const page = await context.newPage();
  await page.goto(`${endpoint.url}/`);
  await page.getByLabel('API key').fill(week.laptop.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#kinds [data-kind] .count').first().waitFor();
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Memories' }).click();
  await page.locator('#memories li.memory').nth(5).waitFor();
  await page.screenshot({ path: join(IMAGES, 'memory-page.png') });
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Forgetting journal' }).click();
  await page.locator('#journal tbody tr[data-rule]').first().waitFor();
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.screenshot({ path: join(IMAGES, 'memory-journal.png') });
  console.log(`wrote ${join(IMAGES, 'memory-page.png')} and memory-journal.png`);
} finally {
  await browser.close();
  await endpoint.close();
}
