import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { authorize } from '../../lambda/auth/authorize.js';
import type { Container } from '../../lambda/composition.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { runningServer } from '../../lambda/dev/data-dir.js';
import { MAX_BODY_BYTES } from '../../lambda/http/request-body.js';
import type { ImportProgress, ImportReport } from '../../lambda/memory/transfer/importer.js';
import type { Principal } from '../../lambda/memory/model.js';
import { type JournalLineJson, journalLineJson, type MemoryJson, memoryJson } from '../../lambda/memory/memory-json.js';
import {
  TRANSFER_FORMAT,
  TRANSFER_VERSION,
  type TransferDocument,
  transferMemory,
} from '../../lambda/memory/transfer/transfer-file.js';
import { UsageError } from './args.js';
import { fetchJson, fileProblem } from './failures.js';
import { naabaCommand } from './invoked.js';
import { withContainer } from './open.js';
import type { Terminal } from './terminal.js';

/**
 * `naaba export [FILE]` and `naaba import FILE`: the file the memory page downloads
 * (docs/export-format.md), read or written as the owner of a key (NAABA_KEY) — the key decides
 * whose memory it is, as on the page and for the tools, so isolation is the key's. Through an
 * endpoint when there is one (a running local server, or --endpoint), else straight into the
 * configured database, where an import of any size is written in resumable steps with its progress.
 */

/** An export or import that cannot go ahead: one clear line, nothing written. */
export class TransferError extends Error {
  override name = 'TransferError';
}

/** Reads and writes one user's memory, wherever it lives. */
interface Target {
  readonly where: string;
  exportPage(part: 'memories' | 'journal', cursor: string | null): Promise<{ items: unknown[]; next: string | null }>;
  /** Imports the file; `progress` hears each step written where the import runs here. */
  importFile(file: TransferDocument, progress: (p: ImportProgress) => void): Promise<ImportReport>;
}

/** Calls one import through an endpoint may take: 5,000 memories at the slowest step rate. */
const MAX_IMPORT_CALLS = 500;

function keyOf(t: Terminal): string {
  const key = t.env.NAABA_KEY?.trim();
  if (!key) throw new UsageError(`set NAABA_KEY to the key whose memory this is (${naabaCommand(t)} issue-key NAME prints one)`);
  return key;
}

/** An endpoint's base URL from --endpoint (its MCP URL or its stage URL); http only on this machine. */
function endpointBase(given: string): string {
  const url = URL.canParse(given) ? new URL(given) : undefined;
  const loopback = url && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.search || url.username) {
    throw new UsageError(
      `--endpoint ${given}: expected the MCP URL of an endpoint (https://…/mcp, or http://127.0.0.1:PORT/mcp)`,
    );
  }
  return url.href.replace(/\/mcp\/?$/, '/').replace(/([^/])$/, '$1/');
}

function overHttp(base: string, key: string): Target {
  const call = async (path: string, init: RequestInit = {}) => {
    const { response, body } = await fetchJson(new URL(path, base).href, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });
    if (response.status === 401) throw new TransferError(`${base} does not know this key (NAABA_KEY), or it was revoked`);
    if (!response.ok) throw new TransferError(`${base} answered ${response.status}: ${String(body.error ?? body.message ?? '')}`);
    return body;
  };
  return {
    where: base,
    async exportPage(part, cursor) {
      const page = await call(`api/export/${part}${cursor ? `?${new URLSearchParams({ cursor })}` : ''}`);
      return {
        items: (page[part === 'memories' ? 'memories' : 'lines'] as unknown[]) ?? [],
        next: (page.nextCursor as string) ?? null,
      };
    },
    async importFile(file, progress) {
      const body = JSON.stringify(file);
      if (Buffer.byteLength(body) > MAX_BODY_BYTES) {
        throw new TransferError(
          `the file is ${Buffer.byteLength(body)} bytes; an endpoint takes at most ${MAX_BODY_BYTES} per import. Import it in parts (--kind KIND, one kind at a time), or, for a local folder, stop the server and run this again`,
        );
      }
      // A call writes for a bounded time, then answers how far it got: the same file again goes on.
      let report: ImportReport;
      let calls = 0;
      let written = 0;
      do {
        report = (await call('api/import', { method: 'POST', body })).imported as ImportReport;
        calls += 1;
        written += report.written;
        const done = report.written + report.alreadyPresent;
        if (!report.complete) progress({ done, total: report.memories - report.expired });
      } while (!report.complete && calls < MAX_IMPORT_CALLS);
      if (!report.complete)
        throw new TransferError(`the import did not finish in ${calls} calls; run the same command again to continue`);
      const kept = report.memories - report.expired;
      return { ...report, written, alreadyPresent: kept - written };
    },
  };
}

async function principalOf(container: Container, key: string): Promise<Principal> {
  const decision = await authorize(`Bearer ${key}`, container.config.region, await container.keyStore());
  if (decision.effect === 'allow') return decision.principal;
  if (decision.effect === 'wrong_region') {
    throw new TransferError(`this key is for region ${decision.keyRegion}; run with --region ${decision.keyRegion}`);
  }
  throw new TransferError('this database does not know the key (NAABA_KEY), or it was revoked');
}

function inDatabase(container: Container, principal: Principal, where: string): Target {
  return {
    where,
    async exportPage(part, cursor) {
      const service = (await container.memory()).transfer;
      if (part === 'memories') {
        const page = await service.exportMemories(principal, cursor ?? undefined);
        return { items: page.memories.map(memoryJson), next: page.nextCursor ?? null };
      }
      const page = await service.exportJournal(principal, cursor ?? undefined);
      return { items: page.lines.map(journalLineJson), next: page.nextCursor ?? null };
    },
    importFile: async (file, progress) => (await container.memory()).transfer.importMemories(principal, file, { progress }),
  };
}

/** Runs `work` against the key's memory: through an endpoint when one is given or running, else the database itself. */
async function withTarget<T>(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  work: (target: Target) => Promise<T>,
): Promise<T> {
  const key = keyOf(t);
  const given = flags.NAABA_ENDPOINT_URL ?? t.env.NAABA_ENDPOINT_URL;
  if (given) return work(overHttp(endpointBase(given), key));
  const note = config.database.kind === 'pglite' ? runningServer(config.dataDir) : undefined;
  if (note) return work(overHttp(`${note.url}/`, key));
  return withContainer(t, config, async (container) => {
    const where = config.database.kind === 'pglite' ? config.dataDir : 'the configured database';
    return work(inDatabase(container, await principalOf(container, key), where));
  });
}

async function everyPage(target: Target, part: 'memories' | 'journal'): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const page = await target.exportPage(part, cursor);
    items.push(...page.items);
    cursor = page.next;
  } while (cursor);
  return items;
}

/** `naaba export [FILE]`: every memory and journal line of the key's user, to FILE (owner-readable) or standard output. */
export async function exportCommand(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  file: string | undefined,
): Promise<void> {
  await withTarget(t, config, flags, async (target) => {
    const memories = ((await everyPage(target, 'memories')) as MemoryJson[]).map(transferMemory);
    const journal = (await everyPage(target, 'journal')) as JournalLineJson[];
    const doc: TransferDocument = {
      format: TRANSFER_FORMAT,
      version: TRANSFER_VERSION,
      exportedAt: new Date().toISOString(),
      memories,
      journal,
    };
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (file && file !== '-') {
      // Memory content: only the owner reads the file, also when it was there before.
      const path = resolve(t.cwd, file);
      try {
        writeFileSync(path, text, { mode: 0o600 });
        chmodSync(path, 0o600);
      } catch (error) {
        const problem = fileProblem(file, error);
        if (!problem) throw error;
        throw new TransferError(`${problem}; the export was not written`);
      }
    } else t.stdout.write(text);
    t.warn(
      `exported ${counted(memories.length, 'memory', 'memories')} and ${counted(journal.length, 'journal line', 'journal lines')} from ${target.where}${file && file !== '-' ? ` to ${file}` : ''}`,
    );
  });
}

/** `1 memory`, `2 memories`: a count and its noun in agreement. */
const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The file's memories and journal lines of one kind only: an import in parts. */
function onlyKind(doc: TransferDocument, kind: string): TransferDocument {
  return { ...doc, memories: doc.memories.filter((m) => m.kind === kind), journal: doc.journal.filter((l) => l.kind === kind) };
}

/** `naaba import FILE [--kind KIND]`: the file into the key's memory, all of it or nothing. */
export async function importCommand(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  file: string,
  kind: string | undefined,
): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(file === '-' ? t.readStdin() : readFileSync(resolve(t.cwd, file), 'utf8'));
  } catch (error) {
    const problem = fileProblem(file, error);
    if (problem) throw new TransferError(`${problem}; nothing was imported`);
    throw new TransferError(`${file}: ${(error as Error).message.split('\n')[0]}; expected the JSON file naaba export wrote`);
  }
  const doc = parsed as TransferDocument;
  const chosen = kind && Array.isArray(doc?.memories) && Array.isArray(doc?.journal) ? onlyKind(doc, kind) : doc;
  await withTarget(t, config, flags, async (target) => {
    const r = await target.importFile(chosen, ({ done, total }) =>
      t.warn(`  ${done} of ${counted(total, 'memory', 'memories')} written or found already there`),
    );
    t.print(
      `imported into ${target.where}: ${counted(r.written, 'memory', 'memories')} written, ${r.alreadyPresent} already there, ${r.expired} expired before the import (not written), ${counted(r.links, 'conflict link', 'conflict links')}, ${counted(r.journalLines, 'journal line', 'journal lines')} (of ${counted(r.memories, 'memory', 'memories')} in the file, in ${counted(r.steps, 'step', 'steps')})`,
    );
  });
}
