import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCuration } from '../config/curation-file.js';
import { ConfigError } from '../config/errors.js';
import type { CurationRules } from '../memory/model.js';

/**
 * The curation rules a data folder was served with, kept in the folder (`rules.json`, owner-only):
 * a sweep, an export, an import or a restarted server of that folder then applies the same TTLs,
 * ceilings and retention without being told again (decision 0104). Written in the curation file's
 * own format, so it is read back through the same checks.
 */

const RULES_FILE = 'rules.json';

export interface FolderRules {
  /** Where the rules came from when they were recorded: a file path, `NAABA_CURATION` or `defaults`. */
  readonly source: string;
  readonly recordedAt: string;
  readonly rules: CurationRules;
}

/** The rules in the curation file's format, kinds in their order. */
export function curationFileOf(rules: CurationRules): Record<string, unknown> {
  return {
    kinds: Object.fromEntries(
      Object.entries(rules.kinds).map(([kind, r]) => [
        kind,
        {
          ceiling: r.ceiling,
          ttl: r.ttlSeconds === null ? null : `${r.ttlSeconds}s`,
          ...(r.dedup === false ? { dedup: false } : {}),
          ...(r.supersededGraceSeconds === undefined ? {} : { superseded_grace: `${r.supersededGraceSeconds}s` }),
        },
      ]),
    ),
    pin_limit: rules.pinLimit,
    journal_retention: `${rules.journalRetentionSeconds}s`,
  };
}

/** Whether two sets of rules would curate alike: same kinds in the same order, same numbers. */
export const sameRules = (a: CurationRules, b: CurationRules): boolean =>
  JSON.stringify(curationFileOf(a)) === JSON.stringify(curationFileOf(b));

/** The rules the folder records, or undefined when it was never served with this version. */
export function readFolderRules(dataDir: string): FolderRules | undefined {
  const path = join(dataDir, RULES_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${path}: ${(error as Error).message}`, { cause: error });
  }
  let raw: { source?: unknown; recordedAt?: unknown; curation?: unknown };
  try {
    raw = JSON.parse(text) as typeof raw;
  } catch (error) {
    throw new ConfigError(
      `${path} is not JSON (${(error as Error).message}); serve the folder with --config FILE to record its rules again`,
    );
  }
  if (typeof raw?.source !== 'string' || typeof raw.recordedAt !== 'string')
    throw new ConfigError(
      `${path} lacks "source" or "recordedAt"; serve the folder with --config FILE to record its rules again`,
    );
  return { source: raw.source, recordedAt: raw.recordedAt, rules: parseCuration(JSON.stringify(raw.curation), path) };
}

/** Records the rules a server of the folder runs with, replacing what was recorded (a new file renamed over). */
export function writeFolderRules(dataDir: string, rules: CurationRules, source: string, now: Date): void {
  const path = join(dataDir, RULES_FILE);
  const body = { source, recordedAt: now.toISOString(), curation: curationFileOf(rules) };
  writeFileSync(`${path}.new`, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

/** How a person reads where recorded rules came from. */
export const describeRecorded = (dataDir: string, recorded: FolderRules): string =>
  `${join(dataDir, RULES_FILE)} (recorded from ${recorded.source} on ${recorded.recordedAt})`;
