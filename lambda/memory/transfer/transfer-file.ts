import { InvalidInputError } from '../errors.js';
import { canonicalId } from '../ids.js';
import { checkText, LIMITS } from '../limits.js';
import { type JournalLineJson, journalLineJson, type MemoryJson, memoryJson, type SourceJson } from '../memory-json.js';
import type { CurationRules, JournalLine, JournalRule, Memory } from '../model.js';

/**
 * The export file (docs/export-format.md): one user's memories with everything they carry —
 * content, provenance, pins, times, counts, restatements, conflict links — and their journal
 * lines, each in the one JSON shape of memory-json.ts. It names no user, key or region: who
 * imports it is the one whose memory it fills, so a file moves between machines, or from a laptop
 * to AWS, without carrying anyone's identity.
 */

export const TRANSFER_FORMAT = 'naaba-memories';
export const TRANSFER_VERSION = 1;

export interface TransferDocument {
  readonly format: typeof TRANSFER_FORMAT;
  readonly version: typeof TRANSFER_VERSION;
  readonly exportedAt: string;
  readonly memories: readonly TransferMemoryJson[];
  readonly journal: readonly JournalLineJson[];
}

const iso = (d: Date) => d.toISOString();

/**
 * A memory as the file holds it: the memory's JSON with its supersession (decision 0114): the
 * memory that replaced it and when (`supersededBy`, `supersededAt`, both null when current). What
 * it replaced is not written: it follows from the others' `supersededBy`. A file written before
 * supersession, without the two fields, holds current memories only.
 */
export type TransferMemoryJson = Omit<MemoryJson, 'supersedes'>;

export const transferMemory = ({ supersedes: _replaced, ...m }: MemoryJson): TransferMemoryJson => m;

/** The whole file, from every memory and journal line read. */
export function transferDocument(memories: readonly Memory[], journal: readonly JournalLine[], now: Date): TransferDocument {
  return {
    format: TRANSFER_FORMAT,
    version: TRANSFER_VERSION,
    exportedAt: iso(now),
    memories: memories.map((m) => transferMemory(memoryJson(m))),
    journal: journal.map(journalLineJson),
  };
}

/** Bounds an import file is checked against before anything is embedded or written. */
export const TRANSFER_LIMITS = {
  memories: 5000,
  journalLines: 50_000,
  agentChars: 200,
  clientChars: 300,
  /** How far past the importer's clock a time may be: clocks of two machines disagree a little. */
  futureSkewMs: 5 * 60_000,
} as const;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
/** The times a file may carry: from the Unix epoch to the last year every engine stores. */
const EARLIEST = Date.parse('1970-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** A time written as this format writes it, naming a real day and second (no 31 February, no 24:00). */
function calendarTime(v: unknown): v is string {
  if (typeof v !== 'string' || !ISO.test(v)) return false;
  const t = Date.parse(v);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 19) === v.slice(0, 19);
}
const RULES: readonly JournalRule[] = ['ceiling', 'expiry', 'duplicate', 'superseded'];

/** Reads one field of an object of the file, naming where it is when it is wrong. */
class Reader {
  constructor(
    private readonly at: string,
    private readonly value: Record<string, unknown>,
    private readonly latest: number,
  ) {}

  static of(at: string, value: unknown, latest: number): Reader {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InvalidInputError(`${at} must be an object`);
    return new Reader(at, value as Record<string, unknown>, latest);
  }

  fail(field: string, what: string): never {
    throw new InvalidInputError(`${this.at}.${field} ${what}; nothing was imported`);
  }

  text(field: string, limit: { chars?: number; bytes?: number }, nullable = false): string | null {
    const v = this.value[field];
    if (nullable && (v === null || v === undefined)) return null;
    if (typeof v !== 'string') this.fail(field, 'must be a string');
    try {
      checkText(`${this.at}.${field}`, v, limit.bytes ? { bytes: limit.bytes } : { chars: limit.chars ?? 0 }, '');
    } catch (error) {
      throw new InvalidInputError(`${(error as Error).message.replace(/\.$/, '')}; nothing was imported`);
    }
    return v;
  }

  string(field: string, limit: { chars?: number; bytes?: number }): string {
    return this.text(field, limit) as string;
  }

  count(field: string, least: number): number {
    const v = this.value[field];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < least || v > 2_147_483_647)
      this.fail(field, `must be a whole number from ${least}`);
    return v;
  }

  flag(field: string): boolean {
    const v = this.value[field];
    if (typeof v !== 'boolean') this.fail(field, 'must be true or false');
    return v;
  }

  /** A UTC time; one that says when something happened to a memory cannot be later than now (give or take clock skew). */
  instant(field: string, anyTime = false): string {
    const v = this.value[field];
    if (!calendarTime(v)) this.fail(field, 'must be an ISO 8601 UTC time naming a real day');
    const t = Date.parse(v);
    if (t < EARLIEST || t > LATEST) this.fail(field, 'must be a time from 1970 to 9999');
    if (!anyTime && t > this.latest) this.fail(field, 'is in the future');
    return new Date(v).toISOString();
  }

  /** Whether the field is given (not absent, not null). */
  has(field: string): boolean {
    return this.value[field] !== undefined && this.value[field] !== null;
  }

  list(field: string, max: number): unknown[] {
    const v = this.value[field] ?? [];
    if (!Array.isArray(v)) this.fail(field, 'must be a list');
    if (v.length > max) this.fail(field, `holds ${v.length} entries; at most ${max}`);
    return v;
  }
}

function kindOf(r: Reader, rules: CurationRules): string {
  const kind = r.string('kind', { chars: 100 });
  if (!Object.hasOwn(rules.kinds, kind))
    r.fail('kind', `is "${kind}", which this server does not keep (its kinds: ${Object.keys(rules.kinds).join(', ')})`);
  return kind;
}

function sourceIn(at: string, value: unknown, latest: number): SourceJson {
  const r = Reader.of(at, value, latest);
  return {
    agent: r.string('agent', { chars: TRANSFER_LIMITS.agentChars }),
    client: r.string('client', { chars: TRANSFER_LIMITS.clientChars }),
    origin: r.text('origin', { chars: LIMITS.originChars }, true),
    at: r.instant('at'),
  };
}

function memoryIn(at: string, value: unknown, rules: CurationRules, latest: number): TransferMemoryJson {
  const r = Reader.of(at, value, latest);
  const id = canonicalId(r.string('id', { chars: 36 })) ?? r.fail('id', 'must be a UUID');
  const createdAt = r.instant('createdAt');
  const lastUsefulAt = r.instant('lastUsefulAt');
  if (Date.parse(lastUsefulAt) < Date.parse(createdAt)) r.fail('lastUsefulAt', 'is before createdAt');
  const conflicts = r.list('conflicts', 100).map((c, i) => {
    const linked = typeof c === 'string' ? canonicalId(c) : undefined;
    if (!linked) throw new InvalidInputError(`${at}.conflicts[${i}] must be a UUID; nothing was imported`);
    return linked;
  });
  const by = r.text('supersededBy', { chars: 36 }, true);
  const supersededBy = by === null ? null : (canonicalId(by) ?? r.fail('supersededBy', 'must be a UUID or null'));
  const supersededAt = supersededBy === null ? null : r.instant('supersededAt');
  if (supersededBy === null && r.has('supersededAt')) r.fail('supersededAt', 'must be null when supersededBy is');
  if (supersededAt !== null && Date.parse(supersededAt) < Date.parse(createdAt)) r.fail('supersededAt', 'is before createdAt');
  return {
    id,
    kind: kindOf(r, rules),
    content: r.string('content', { bytes: LIMITS.contentBytes }),
    pinned: r.flag('pinned'),
    createdAt,
    lastUsefulAt,
    recallCount: r.count('recallCount', 0),
    restatements: r.count('restatements', 1),
    agent: r.string('agent', { chars: TRANSFER_LIMITS.agentChars }),
    client: r.string('client', { chars: TRANSFER_LIMITS.clientChars }),
    origin: r.text('origin', { chars: LIMITS.originChars }, true),
    restatedBy: r.list('restatedBy', LIMITS.sourcesKept).map((s, i) => sourceIn(`${at}.restatedBy[${i}]`, s, latest)),
    conflicts,
    supersededBy,
    supersededAt,
  };
}

function lineIn(at: string, value: unknown, rules: CurationRules, latest: number): JournalLineJson {
  const r = Reader.of(at, value, latest);
  const rule = r.string('rule', { chars: 20 }) as JournalRule;
  if (!RULES.includes(rule)) r.fail('rule', `must be one of ${RULES.join(', ')}`);
  return {
    at: r.instant('at'),
    kind: kindOf(r, rules),
    rule,
    ageSeconds: r.count('ageSeconds', 0),
    recallCount: r.count('recallCount', 0),
  };
}

/**
 * Each `supersededBy` names another memory of the file, of the same kind, and no memory is,
 * through a chain of replacements, replaced by itself (a current memory ends every chain).
 */
function checkSupersession(memories: readonly TransferMemoryJson[]): void {
  const byId = new Map(memories.map((m) => [m.id, m]));
  for (const [i, m] of memories.entries()) {
    if (m.supersededBy === null) continue;
    const newer = byId.get(m.supersededBy);
    const fail = (what: string) => {
      throw new InvalidInputError(`memories[${i}].supersededBy names ${m.supersededBy}, ${what}; nothing was imported`);
    };
    if (!newer || newer.id === m.id) fail('which is not another memory of the file');
    if (newer?.kind !== m.kind) fail(`which is a ${newer?.kind}, not a ${m.kind}`);
    const seen = new Set([m.id]);
    for (let next = newer; next?.supersededBy; next = byId.get(next.supersededBy)) {
      if (seen.has(next.supersededBy)) fail('whose chain of replacements comes back on itself');
      seen.add(next.id);
    }
  }
}

/**
 * Checks a whole import file before anything happens: its format and version, every field of
 * every memory and line (the same text rules as `remember`), kinds this server keeps, unique ids,
 * no two memories of one kind that are the same text, conflict links between memories of the
 * file, and replacements by another memory of the file and kind, without a cycle. The first problem is a clear error naming where it is; nothing has been written.
 */
export function parseTransfer(value: unknown, rules: CurationRules, now: Date): TransferDocument {
  const latest = now.getTime() + TRANSFER_LIMITS.futureSkewMs;
  const top = Reader.of('the file', value, latest);
  const raw = value as Record<string, unknown>;
  if (raw.format !== TRANSFER_FORMAT) top.fail('format', `must be "${TRANSFER_FORMAT}" (a file naaba export wrote)`);
  if (raw.version !== TRANSFER_VERSION)
    top.fail('version', `must be ${TRANSFER_VERSION}; this server reads version ${TRANSFER_VERSION} only`);
  const memories = top.list('memories', TRANSFER_LIMITS.memories).map((m, i) => memoryIn(`memories[${i}]`, m, rules, latest));
  const journal = top.list('journal', TRANSFER_LIMITS.journalLines).map((l, i) => lineIn(`journal[${i}]`, l, rules, latest));
  const ids = new Set<string>();
  for (const [i, m] of memories.entries()) {
    if (ids.has(m.id)) throw new InvalidInputError(`memories[${i}].id ${m.id} appears twice; nothing was imported`);
    ids.add(m.id);
  }
  for (const [i, m] of memories.entries()) {
    const stray = m.conflicts.find((c) => !ids.has(c) || c === m.id);
    if (stray)
      throw new InvalidInputError(
        `memories[${i}].conflicts names ${stray}, which is not another memory of the file; nothing was imported`,
      );
  }
  checkSupersession(memories);
  return { format: TRANSFER_FORMAT, version: TRANSFER_VERSION, exportedAt: top.instant('exportedAt', true), memories, journal };
}
