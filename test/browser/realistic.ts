import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { sweepRegion } from '../../lambda/region-sweep.js';
import type { ManualClock } from '../support/clock.js';
import { call, connect, type TestEndpoint } from '../support/endpoint.js';
import { ScriptedJudge } from '../support/judges.js';

/**
 * A week of one developer's memory, written the way agents write it: two keys (Claude Code on a
 * laptop, Cursor), restatements, a contradiction the judge caught, pins, recalls, sessions that
 * expired and events past their ceiling. For the README's screenshot and the page's browser
 * tests: content a person would recognise, never test payloads.
 */

/** Small enough ceilings that a week of use meets them. */
export const REALISTIC_CURATION = JSON.stringify({
  kinds: {
    fact: { ceiling: 40 },
    preference: { ceiling: 20 },
    instruction: { ceiling: 20 },
    event: { ceiling: 5 },
    session: { ceiling: 10, ttl: '24h' },
  },
  pin_limit: 5,
});

/** The judge that would say these two contradict each other (the offline judge only knows exact restatements). */
export const realisticJudge = () =>
  new ScriptedJudge((existing, incoming) =>
    /design review/i.test(existing) && /design review/i.test(incoming) && existing !== incoming ? 'contradicts' : 'different',
  );

const RELEASE_CHECKLIST = [
  'Release checklist for the web app:',
  '1. Freeze the main branch in the chat channel and wait for the last CI run to go green.',
  '2. Bump the version in package.json and write the changelog entry by hand: one line per user-visible change.',
  '3. Tag the release (vX.Y.Z) and let the pipeline build the container image; never push images from a laptop.',
  '4. Deploy to staging, run the smoke suite (checkout, refunds, invoices) and read the error dashboard for ten minutes.',
  '5. Promote to production during business hours only, with a second person watching the latency and 5xx panels.',
  '6. If the p95 latency of checkout rises by more than 30 % or errors pass 1 %, roll back first and investigate after.',
  '7. Post the release notes in #releases and close the milestone.',
].join('\n');

interface Step {
  readonly by: 'laptop' | 'cursor';
  readonly content: string;
  readonly kind: string;
  readonly origin?: string;
  readonly pinned?: boolean;
  /** Hours to move the clock before this step. */
  readonly after?: number;
  /** Written in the same instant as the next step, as an agent that saves several notes in one turn. */
  readonly together?: boolean;
}

const WEEK: readonly Step[] = [
  { by: 'laptop', kind: 'session', content: 'Working in the payments repository, branch fix/refund-rounding.', together: true },
  {
    by: 'laptop',
    kind: 'session',
    content: 'Unit tests run with pnpm test:unit; the integration suite needs Docker.',
    together: true,
  },
  {
    by: 'laptop',
    kind: 'session',
    content: 'Migrating the invoices table to numeric(12,2); halfway through.',
    origin: 'terminal session',
    together: true,
  },
  {
    by: 'laptop',
    kind: 'fact',
    content: 'Refund amounts are stored in cents, as integers.',
    origin: 'payments/README.md',
    together: true,
  },
  {
    by: 'laptop',
    kind: 'fact',
    content: 'The payments service runs on Node 22 until the 4.2 release.',
    origin: 'payments/package.json',
  },
  { by: 'laptop', kind: 'fact', content: 'Our Postgres is 16.4 in production and 15 in CI.', origin: 'infra/README.md' },
  {
    by: 'laptop',
    kind: 'instruction',
    content: 'Never run migrations against production from a laptop; use the pipeline.',
    pinned: true,
  },
  {
    by: 'cursor',
    kind: 'preference',
    content: 'Write commit messages in the conventional style: feat, fix, docs.',
    origin: 'CONTRIBUTING.md',
  },
  { by: 'laptop', kind: 'event', content: 'Version 4.1.1 shipped with the timezone fix for recurring invoices.', after: 5 },
  {
    by: 'cursor',
    kind: 'fact',
    content: 'The billing service’s health check is /internal/health, not /healthz.',
    origin: 'billing/src/server.ts',
  },
  { by: 'laptop', kind: 'fact', content: 'The design review is on Wednesdays at 10:00.', origin: 'calendar invite', after: 20 },
  {
    by: 'laptop',
    kind: 'event',
    content: 'Incident 2291: checkout latency doubled for 40 minutes after the cache flush.',
    origin: 'incident channel',
  },
  { by: 'cursor', kind: 'instruction', content: 'Use pnpm, not npm, in the web repository.', origin: 'web/.npmrc' },
  { by: 'laptop', kind: 'session', content: 'Reviewing PR #1842 (rate limiter) with Amina this afternoon.', after: 4 },
  {
    by: 'laptop',
    kind: 'event',
    content: 'Version 4.1.2 shipped: the invoice PDF footer shows the VAT number again.',
    after: 22,
  },
  { by: 'laptop', kind: 'fact', content: 'Kofi owns the release notes for version 4.2.', origin: 'standup, Tuesday' },
  {
    by: 'cursor',
    kind: 'preference',
    content: 'Léa prefers small pull requests, with each migration in its own commit.',
    pinned: true,
  },
  { by: 'laptop', kind: 'preference', content: 'يفضّل كريم أن تُكتب ملاحظات الاجتماع بالعربية.', origin: 'message from Karim' },
  { by: 'laptop', kind: 'event', content: 'Load test: the rate limiter held 1,200 requests per second per tenant.', after: 18 },
  { by: 'laptop', kind: 'instruction', content: RELEASE_CHECKLIST, origin: 'docs/release.md' },
  {
    by: 'cursor',
    kind: 'fact',
    content: 'Customer exports are kept 30 days in the eu-central-1 bucket, then deleted.',
    origin: 'data retention policy',
  },
  { by: 'laptop', kind: 'event', content: 'Version 4.1.3 shipped with the invoice rounding fix.', after: 20 },
  { by: 'laptop', kind: 'fact', content: 'The design review moved to Thursdays at 10:00.', origin: 'email from Amina' },
  { by: 'cursor', kind: 'fact', content: 'the staging database is READ-ONLY on fridays after 16:00', origin: 'cursor chat' },
  { by: 'laptop', kind: 'fact', content: 'The staging database is read-only on Fridays after 16:00.', origin: 'standup notes' },
  { by: 'laptop', kind: 'event', content: 'Incident 2304: a stuck queue delayed refund emails by two hours.', after: 14 },
  { by: 'laptop', kind: 'event', content: 'Version 4.2.0-rc.1 is on staging for the payments team to test.', after: 6 },
  {
    by: 'laptop',
    kind: 'session',
    content: 'Bisecting the flaky test payments/refund.spec.ts; the clock mock looks guilty.',
    after: 3,
  },
  { by: 'cursor', kind: 'session', content: 'Pairing with Kofi on the release notes draft until lunch.' },
];

/** What the seeded week gives back: the keys, and a few ids a test looks for. */
export interface RealisticWeek {
  readonly laptop: IssuedKey;
  readonly cursor: IssuedKey;
  readonly ids: Map<string, string>;
}

/**
 * Writes the week through real MCP clients, moving `clock` as it goes and sweeping at the end,
 * so that the journal has ceiling and expiry lines on several days. `clock` should start a week
 * before the real now, so that the page's relative times read as they would.
 */
export async function seedRealisticWeek(endpoint: TestEndpoint, clock: ManualClock): Promise<RealisticWeek> {
  const laptop = await endpoint.issueKey('lea-laptop');
  const cursor = await endpoint.issueKey('lea-cursor', undefined, laptop.userId);
  const clients: Record<Step['by'], Client> = {
    laptop: await connect(endpoint.mcpUrl, laptop.token, { name: 'claude-code', version: '2.1.4' }),
    cursor: await connect(endpoint.mcpUrl, cursor.token, { name: 'cursor', version: '1.7.2' }),
  };
  const ids = new Map<string, string>();
  try {
    for (const step of WEEK) {
      if (step.after) clock.advance(step.after * 3600);
      const { structuredContent } = await call<{ id: string }>(clients[step.by], 'remember', {
        content: step.content,
        kind: step.kind,
        ...(step.origin ? { origin: step.origin } : {}),
        ...(step.pinned ? { pinned: true } : {}),
      });
      ids.set(step.content, structuredContent.id);
      if (!step.together) clock.advance(7 * 60);
    }
    // Each recall names its kind and takes one memory, so which memories it marks useful never
    // depends on how equal scores break (ids are random): the tests read ties in "next to go".
    const recalls = [
      ['who owns the release notes', 'fact'],
      ['postgres version in production', 'fact'],
      ['how do I release the web app', 'instruction'],
    ] as const;
    for (const [query, kind] of recalls) {
      clock.advance(25 * 60);
      await call(clients.laptop, 'recall', { query, kinds: [kind], limit: 1 });
    }
    await sweepRegion(endpoint.container);
  } finally {
    await clients.laptop.close();
    await clients.cursor.close();
  }
  return { laptop, cursor, ids };
}

/** Seconds the seed moves the clock: the steps' hours, seven minutes after each step, 25 before each recall. */
const WEEK_SECONDS = WEEK.reduce((s, step) => s + (step.after ?? 0) * 3600 + (step.together ? 0 : 7 * 60), 0) + 3 * 25 * 60;

/** Where the clock starts so that the seeded week ends ten minutes before the real now. */
export const weekStart = () => Date.now() - WEEK_SECONDS * 1000 - 10 * 60_000;

export { RELEASE_CHECKLIST };
