/**
 * The index of decision records, `docs/decisions/README.md`, generated from the records and from
 * `gaps.json`, so that a new record never needs a hand edit of the index
 * (`npm run docs:decisions`; `test/unit/decisions-index.test.ts` fails when the file is stale).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** The folder of the records. */
export const DECISIONS = new URL('../../docs/decisions/', import.meta.url);

/** The generated file and the one it is generated from besides the records. */
const INDEX_FILE = 'README.md';
const GAPS_FILE = 'gaps.json';

const RECORD_FILE = /^(\d{4})-[a-z0-9-]+\.md$/;
const HEADING = /^# (\d{4}) — (.+)$/;
const SUPERSEDED = /^superseded by (\d{4})\b/i;

/** What the index needs of one record. */
export interface DecisionRecord {
  readonly number: number;
  readonly file: string;
  /** The first heading, without its number; empty when there is none. */
  readonly title: string;
  /** The number the first heading gives, if it gives one. */
  readonly headingNumber: number | undefined;
  /** The `Status:` paragraph right under the heading, as one line, without its label. */
  readonly status: string | undefined;
}

/** A run of numbers with no record, and what happened to them. */
export interface GapRange {
  readonly first: number;
  readonly last: number;
  readonly note: string;
}

/** The contents of `gaps.json`. */
export interface GapNotes {
  /** Numbers below the newest record that have no record, explained from the history. */
  readonly gaps: readonly GapRange[];
  /** Numbers held for records written elsewhere: a record may land in them at any time. */
  readonly reserved: readonly GapRange[];
}

/** What a missing number gets when `gaps.json` does not explain it. */
export const SKIPPED = 'never written: the number was skipped';

const pad = (n: number) => String(n).padStart(4, '0');

/** Reads one record's number, title and status; never throws on a malformed record (see `decisionProblems`). */
export function parseRecord(file: string, text: string): DecisionRecord {
  const number = Number(RECORD_FILE.exec(file)?.[1] ?? Number.NaN);
  const lines = text.split('\n').map((line) => line.trimEnd());
  const headingAt = lines.findIndex((line) => line.startsWith('# '));
  const heading = headingAt < 0 ? undefined : HEADING.exec(lines[headingAt] ?? '');
  const title = heading?.[2] ?? (headingAt < 0 ? '' : (lines[headingAt] ?? '').slice(2));
  let at = headingAt + 1;
  while (at < lines.length && lines[at] === '') at++;
  const paragraph: string[] = [];
  if (headingAt >= 0 && lines[at]?.startsWith('Status:')) {
    for (; at < lines.length && lines[at] !== ''; at++) paragraph.push((lines[at] ?? '').trim());
  }
  const status = paragraph.join(' ').replace(/^Status:\s*/, '');
  return {
    number,
    file,
    title: title.trim(),
    headingNumber: heading ? Number(heading[1]) : undefined,
    status: status === '' ? undefined : status,
  };
}

/** Every record of the folder, by number; other Markdown files come back too, so that checks can name them. */
export function readDecisions(folder: URL = DECISIONS): DecisionRecord[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.md') && file !== INDEX_FILE)
    .sort()
    .map((file) => parseRecord(file, readFileSync(new URL(file, folder), 'utf8')));
}

function gapRanges(value: unknown, name: string): GapRange[] {
  if (!Array.isArray(value)) throw new Error(`${GAPS_FILE}: "${name}" must be a list`);
  return value.map((entry: unknown) => {
    const { first, last, note } = (entry ?? {}) as Record<string, unknown>;
    const range = { first: Number(first), last: Number(last ?? first), note };
    if (typeof first !== 'string' || !/^\d{4}$/.test(first) || (last !== undefined && !/^\d{4}$/.test(String(last)))) {
      throw new Error(`${GAPS_FILE}: each entry of "${name}" names "first" (and "last") as four digits`);
    }
    if (typeof note !== 'string' || note === '' || range.last < range.first) {
      throw new Error(`${GAPS_FILE}: ${first} needs a note and a last number not before its first`);
    }
    return { ...range, note };
  });
}

/** Reads `gaps.json`: `{ "gaps": [{ "first": "0018", "last": "0019", "note": "…" }], "reserved": […] }`. */
export function readGapNotes(folder: URL = DECISIONS): GapNotes {
  const json = JSON.parse(readFileSync(new URL(GAPS_FILE, folder), 'utf8')) as Record<string, unknown>;
  return { gaps: gapRanges(json.gaps ?? [], 'gaps'), reserved: gapRanges(json.reserved ?? [], 'reserved') };
}

const isRecord = (record: DecisionRecord) => Number.isInteger(record.number);

/** Decision numbers a status names, leaving out anything inside backticks. */
function namedNumbers(status: string | undefined): number[] {
  const prose = (status ?? '').replace(/`[^`]*`/g, '');
  return [...prose.matchAll(/\b(\d{4})\b/g)].map((match) => Number(match[1]));
}

/** Why the folder cannot be indexed as it stands; empty when it can. */
export function decisionProblems(records: readonly DecisionRecord[], notes: GapNotes): string[] {
  const problems: string[] = [];
  const numbers = new Set(records.filter(isRecord).map((record) => record.number));
  const byNumber = new Map<number, DecisionRecord[]>();
  for (const record of records) {
    if (!isRecord(record)) {
      problems.push(`${record.file}: not named NNNN-title.md (lower case, digits and hyphens)`);
      continue;
    }
    byNumber.set(record.number, [...(byNumber.get(record.number) ?? []), record]);
    if (record.headingNumber !== record.number) {
      problems.push(`${record.file}: the first heading must read "# ${pad(record.number)} — Title"`);
    }
    if (record.status === undefined) {
      problems.push(`${record.file}: no "Status:" line right under the heading`);
    } else if (/^superseded/i.test(record.status)) {
      const successor = SUPERSEDED.exec(record.status)?.[1];
      if (successor === undefined) {
        problems.push(`${record.file}: a superseded record says "Status: superseded by NNNN"`);
      } else if (Number(successor) <= record.number || !numbers.has(Number(successor))) {
        problems.push(`${record.file}: superseded by ${successor}, which is not a later record`);
      }
    }
  }
  for (const [number, same] of byNumber) {
    if (same.length > 1) problems.push(`${pad(number)} is taken by ${same.map((record) => record.file).join(' and ')}`);
  }
  for (const range of notes.gaps) {
    for (let n = range.first; n <= range.last; n++) {
      if (byNumber.has(n)) problems.push(`${GAPS_FILE} explains ${pad(n)} as missing, but ${pad(n)} has a record`);
    }
  }
  return problems;
}

/** The first sentence of a status: a period followed by a space, outside parentheses and code. */
function firstSentence(status: string): string {
  let depth = 0;
  let code = false;
  for (let i = 0; i < status.length; i++) {
    const c = status[i];
    if (c === '`') code = !code;
    else if (!code && c === '(') depth++;
    else if (!code && c === ')') depth = Math.max(0, depth - 1);
    else if (!code && depth === 0 && c === '.' && (i === status.length - 1 || status[i + 1] === ' ')) return status.slice(0, i);
  }
  return status;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Status text with every record number outside code made a link to that record. */
function linkNumbers(text: string, files: ReadonlyMap<number, string>): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`')
        ? part
        : part.replace(/\b(\d{4})\b/g, (all, digits: string) => {
            const file = files.get(Number(digits));
            return file ? `[${digits}](${file})` : all;
          }),
    )
    .join('');
}

/** Later records that a record's status names, or whose status names it: what changed or built on it. */
function laterRecords(record: DecisionRecord, records: readonly DecisionRecord[]): number[] {
  const own = new Set(namedNumbers(record.status));
  return records
    .filter(
      (other) => other.number > record.number && (own.has(other.number) || namedNumbers(other.status).includes(record.number)),
    )
    .map((other) => other.number);
}

/** Missing numbers, each run of consecutive ones with the same note as one row. */
export function missingNumbers(records: readonly DecisionRecord[], notes: GapNotes): GapRange[] {
  const taken = new Set(records.filter(isRecord).map((record) => record.number));
  const newest = Math.max(0, ...taken);
  const last = Math.max(newest, ...notes.reserved.map((range) => range.last));
  const within = (ranges: readonly GapRange[], n: number) => ranges.find((range) => n >= range.first && n <= range.last);
  const rows: GapRange[] = [];
  for (let n = 1; n <= last; n++) {
    if (taken.has(n)) continue;
    const note = within(notes.gaps, n)?.note ?? within(notes.reserved, n)?.note ?? (n <= newest ? SKIPPED : undefined);
    if (note === undefined) continue;
    const previous = rows.at(-1);
    if (previous && previous.last === n - 1 && previous.note === note) rows[rows.length - 1] = { ...previous, last: n };
    else rows.push({ first: n, last: n, note });
  }
  return rows;
}

const INTRO = `# Decision records

<!-- Generated by \`npm run docs:decisions\` (bin/docs/decisions-index.ts): edit the records or gaps.json, not this file. -->

One short record per real choice, numbered in the order they were written. This index is made from
each record's first heading and its \`Status:\` line, and from [gaps.json](gaps.json) for the
missing numbers; \`test/unit/decisions-index.test.ts\` fails when it is out of date.

A new record: take the next free number (other branches may be writing some: see the reserved
numbers below), name the file \`NNNN-short-title.md\`, open it with \`# NNNN — Title\` and a
\`Status:\` line, and run \`npm run docs:decisions\`. A record a later one replaces whole says
\`Status: superseded by NNNN\` and what changed; one changed in part keeps its status and names the
later record there. "Later records" lists the later records whose status names this one, and
those this one's status names.
`;

const MISSING_INTRO = `Computed from the files: every number up to the newest record that has none, and the reserved
ones. What happened to each comes from the history (\`git log --all -- docs/decisions\`,
\`git log -S\`) and is kept in gaps.json; a number it does not explain reads "${SKIPPED}".`;

/** The whole of `docs/decisions/README.md`. */
export function renderIndex(records: readonly DecisionRecord[], notes: GapNotes): string {
  const indexed = records.filter(isRecord).sort((a, b) => a.number - b.number || a.file.localeCompare(b.file));
  const files = new Map(indexed.map((record) => [record.number, record.file]));
  const link = (n: number) => `[${pad(n)}](${files.get(n)})`;
  const rows = indexed.map((record) => {
    const status =
      record.status === undefined
        ? '**no status**'
        : linkNumbers(cell(firstSentence(record.status)), files).replace(/^superseded/i, '**superseded**');
    const later = laterRecords(record, indexed).map(link).join(', ');
    return `| ${pad(record.number)} | [${cell(record.title || record.file)}](${record.file}) | ${status} | ${later} |`;
  });
  const missing = missingNumbers(indexed, notes).map((range) => {
    const numbers = range.first === range.last ? pad(range.first) : `${pad(range.first)}–${pad(range.last)}`;
    return `| ${numbers} | ${linkNumbers(cell(range.note), files)} |`;
  });
  return [
    INTRO,
    '| No. | Decision | Status | Later records |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    '## Missing numbers',
    '',
    MISSING_INTRO,
    '',
    '| Numbers | What happened |',
    '| --- | --- |',
    ...missing,
    '',
  ].join('\n');
}

/** `npm run docs:decisions [-- --check]`: writes the index, or with `--check` only says whether it is current. */
export function main(args: readonly string[], folder: URL = DECISIONS): number {
  const records = readDecisions(folder);
  const notes = readGapNotes(folder);
  const problems = decisionProblems(records, notes);
  for (const problem of problems) console.error(problem);
  const index = renderIndex(records, notes);
  const target = new URL(INDEX_FILE, folder);
  if (args.includes('--check')) {
    const current = readFileSync(target, 'utf8') === index;
    if (!current) console.error(`docs/decisions/${INDEX_FILE} is out of date: run npm run docs:decisions`);
    return current && problems.length === 0 ? 0 : 1;
  }
  writeFileSync(target, index);
  console.log(`docs/decisions/${INDEX_FILE}: ${records.filter(isRecord).length} records`);
  return problems.length === 0 ? 0 : 1;
}
