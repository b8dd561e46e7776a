import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environment } from '../../lambda/config/env.js';
import { largeMemory } from '../../bench/fairness-floods.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { NAABA_BIN, runCli } from '../support/cli.js';

/**
 * An import is written in steps and is resumable (issue 34, point 1): `naaba import` says how far
 * it got after each step; killed with SIGKILL in the middle (the real binary: only a process can be
 * killed), what it wrote stays, and importing the same file again writes exactly what is missing —
 * every memory once, the conflict links and the journal lines — and a third import writes nothing.
 */

const root = mkdtempSync(join(tmpdir(), 'naaba-import-resume-'));
const data = join(root, 'data');
const file = join(root, 'memories.json');
// Two memories a step: killed after two steps, the import still has tens of steps to go, so the kill
// lands in the middle even on a busy machine (a local import on a folder it holds does not rest).
const TOTAL = 80;
afterAll(() => rmSync(root, { recursive: true, force: true }));

function exportFile(): unknown {
  const at = (i: number) => new Date(Date.now() - (TOTAL - i) * 60_000).toISOString();
  const ids = Array.from({ length: TOTAL }, () => randomUUID());
  const memories = ids.map((id, i) => ({
    id,
    kind: 'fact',
    content: largeMemory(i).slice(0, 4_000),
    pinned: false,
    createdAt: at(i),
    lastUsefulAt: at(i),
    recallCount: i % 3,
    restatements: 1,
    agent: 'importer',
    client: 'tests',
    origin: i % 2 === 0 ? 'notes' : null,
    restatedBy: [],
    // The first and last memories contradict each other: a link across the steps.
    conflicts: i === 0 ? [ids[TOTAL - 1]] : i === TOTAL - 1 ? [ids[0]] : [],
  }));
  const journal = [0, 1, 2].map((i) => ({ at: at(i), kind: 'fact', rule: 'ceiling', ageSeconds: 3_600 + i, recallCount: 0 }));
  return { format: 'naaba-memories', version: 1, exportedAt: new Date().toISOString(), memories, journal };
}

/** Runs the real binary's import and kills it with SIGKILL once it has reported `steps` steps. */
function importKilledAfter(steps: number, key: string): Promise<{ reported: number; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NAABA_BIN, 'import', file, '--data', data], {
      env: { ...environment(), NAABA_KEY: key, NAABA_LOG_LEVEL: 'SILENT' },
    });
    let reported = 0;
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      reported = [...stderr.matchAll(new RegExp(`(\\d+) of ${TOTAL} memories`, 'g'))].length;
      if (reported >= steps) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the import ended before it was killed:\n${stderr}`));
      else resolve({ reported, signal });
    });
  });
}

const written = (stdout: string) => Number(/(\d+) memor(?:y|ies) written/.exec(stdout)?.[1]);
const present = (stdout: string) => Number(/(\d+) already there/.exec(stdout)?.[1]);

test(
  'killed mid-way, the same import again writes exactly what is missing; a third writes nothing',
  async () => {
    writeFileSync(file, JSON.stringify(exportFile()));
    const key = JSON.parse((await runCli(['issue-key', 'importer', '--json', '--data', data])).stdout).token as string;

    const killed = await importKilledAfter(2, key);
    expect(killed.reported).toBeGreaterThanOrEqual(2);

    const resumed = await runCli(['import', file, '--data', data], { NAABA_KEY: key });
    expect(resumed.code).toBe(0);
    // Each step is one statement: the killed run wrote whole steps, at least the two it reported.
    expect(present(resumed.stdout)).toBeGreaterThanOrEqual(2);
    expect(written(resumed.stdout) + present(resumed.stdout)).toBe(TOTAL);
    expect(resumed.stdout).toContain('2 conflict links, 3 journal lines');
    expect(resumed.stderr).toContain(`${TOTAL} of ${TOTAL} memories`);

    const again = await runCli(['import', file, '--data', data], { NAABA_KEY: key });
    expect([written(again.stdout), present(again.stdout)]).toEqual([0, TOTAL]);
    expect(again.stdout).toContain('0 conflict links, 0 journal lines');

    const exported = await runCli(['export', '-', '--data', data], { NAABA_KEY: key });
    const doc = JSON.parse(exported.stdout) as { memories: { content: string; conflicts: string[] }[]; journal: unknown[] };
    expect(doc.memories).toHaveLength(TOTAL);
    expect(new Set(doc.memories.map((m) => m.content)).size).toBe(TOTAL);
    expect(doc.memories.filter((m) => m.conflicts.length > 0)).toHaveLength(2);
    expect(doc.journal).toHaveLength(3);
  },
  HEAVY_STEP_MS,
);
