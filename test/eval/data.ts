/**
 * Reads the judge benchmarks from ../shared/data at run time (they are non-commercial or carry
 * their own notices, so they are never copied into the repository). Labels as ../shared/README.md says.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Split = 'dev' | 'heldout';
export type SickLabel = 'same' | 'different' | 'contradiction';
export type DaccordLabel = 'compatible' | 'contradiction';

export interface Pair<L extends string> {
  readonly id: string;
  readonly a: string;
  readonly b: string;
  readonly label: L;
}

/** `../shared/data` seen from the project root, wherever the script is started from. */
export const DEFAULT_DATA_DIR = resolve(fileURLToPath(new URL('../../../shared/data', import.meta.url)));

/** Tab-separated rows; a field in double quotes may hold `""` for a quote (DACCORD writes some that way). */
function readTsv(path: string): string[][] {
  const text = readFileSync(path, 'utf8');
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(1)
    .map((line) => line.split('\t').map(unquote));
}

function unquote(field: string): string {
  const trimmed = field.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"'))
    return trimmed.slice(1, -1).replaceAll('""', '"').trim();
  return trimmed;
}

/** Mutual entailment is the same claim; a contradiction in either direction is a contradiction; anything else differs. */
function sickLabel(ab: string, ba: string): SickLabel {
  if (ab === 'e' && ba === 'e') return 'same';
  if (ab === 'c' || ba === 'c') return 'contradiction';
  return 'different';
}

const directionOf = (column: string) => (column.includes('entails') ? 'e' : column.includes('contradicts') ? 'c' : 'n');

/** The corrected direction codes (`AeBBnA` …) of Kalouli et al., by pair id; a stray trailing comma is stripped. */
function sickCorrections(dir: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const row of readTsv(join(dir, 'sick', 'SICK_subset_corrected_12.03.2019.csv'))) {
    const match = /^A([enc])BB([enc])A$/.exec((row[4] ?? '').replace(/,+$/, ''));
    if (row[0] && match?.[1] && match[2]) out.set(row[0], [match[1], match[2]]);
  }
  return out;
}

/** SICK pairs of a split: dev = SemEval TRAIN and TRIAL, held out = TEST. */
export function loadSick(dir: string, split: Split): Pair<SickLabel>[] {
  const corrections = sickCorrections(dir);
  const wanted = split === 'dev' ? ['TRAIN', 'TRIAL'] : ['TEST'];
  return readTsv(join(dir, 'sick', 'SICK.txt'))
    .filter((row) => wanted.includes(row[11] ?? ''))
    .map((row) => {
      const id = row[0] ?? '';
      const [ab, ba] = corrections.get(id) ?? [directionOf(row[5] ?? ''), directionOf(row[6] ?? '')];
      return { id, a: row[1] ?? '', b: row[2] ?? '', label: sickLabel(ab, ba) };
    });
}

/** DACCORD pairs of a split: dev = odd id numbers, held out = even. */
export function loadDaccord(dir: string, split: Split): Pair<DaccordLabel>[] {
  return readTsv(join(dir, 'daccord', 'daccord_dataset.tsv'))
    .filter((row) => Number((row[0] ?? '').replace(/^\D+/, '')) % 2 === (split === 'dev' ? 1 : 0))
    .map((row) => ({
      id: row[0] ?? '',
      a: row[1] ?? '',
      b: row[2] ?? '',
      label: row[3] === '1' ? 'contradiction' : 'compatible',
    }));
}
