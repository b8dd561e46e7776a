/**
 * The LongMemEval-S development subset (../shared/data/longmemeval-s-dev, MIT; read at run time,
 * never copied into the repository or the package): each question's haystack of chat sessions as
 * the memories an agent would keep, one per turn, and the turns that hold its answer. Only these
 * 100 questions are ever read: the rest of the pool is the held-out check (../shared/README.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { LIMITS } from '../lambda/memory/limits.js';

export interface Piece {
  /** `<session>:<turn>`, and `#<part>` for a turn split to fit the memory limit. */
  readonly id: string;
  /** What is remembered: the speaker's role and the words. */
  readonly content: string;
}

export interface Session {
  readonly id: string;
  readonly pieces: readonly Piece[];
}

export interface LongQuestion {
  readonly id: string;
  readonly type: string;
  readonly text: string;
  readonly sessions: readonly Session[];
  /** Pieces holding the answer: every part of every turn marked `has_answer`. */
  readonly evidence: readonly string[];
}

interface RawFile {
  question_id: string;
  question_type: string;
  question: string;
  haystack_session_ids: string[];
  haystack_sessions: { role: string; content: string; has_answer?: boolean }[][];
}

/** Room left under the content limit for the role prefix. */
const PART_BYTES = LIMITS.contentBytes - 64;

/** A text cut at whitespace into parts of at most PART_BYTES UTF-8 bytes each (a word longer than that is cut). */
export function splitToFit(text: string): string[] {
  const parts: string[] = [];
  let rest = text;
  while (Buffer.byteLength(rest, 'utf8') > PART_BYTES) {
    let cut = PART_BYTES;
    while (Buffer.byteLength(rest.slice(0, cut), 'utf8') > PART_BYTES) cut -= 16;
    const space = rest.lastIndexOf(' ', cut);
    const at = space > cut / 2 ? space : cut;
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest.trim() !== '') parts.push(rest.trim());
  return parts;
}

/**
 * The questions, types interleaved in a fixed order (round robin over the types, each type's
 * questions by id), so that `--limit N` takes a mix of every type.
 */
export function loadLongMemEval(dir: string): LongQuestion[] {
  const byType = new Map<string, LongQuestion[]>();
  for (const file of readdirSync(join(dir, 'raw')).filter((f) => f.endsWith('.json.gz'))) {
    const raw = JSON.parse(gunzipSync(readFileSync(join(dir, 'raw', file))).toString('utf8')) as RawFile;
    const evidence: string[] = [];
    const sessions = raw.haystack_sessions.map((turns, s) => {
      const session = raw.haystack_session_ids[s] ?? `session-${s}`;
      const pieces = turns.flatMap((turn, t) => {
        const parts = splitToFit(turn.content);
        return parts.map((part, i) => {
          const id = parts.length === 1 ? `${session}:${t}` : `${session}:${t}#${i}`;
          if (turn.has_answer) evidence.push(id);
          return { id, content: `${turn.role}: ${part}` };
        });
      });
      return { id: session, pieces };
    });
    const question = { id: raw.question_id, type: raw.question_type, text: raw.question, sessions, evidence };
    byType.set(raw.question_type, [...(byType.get(raw.question_type) ?? []), question]);
  }
  const lists = [...byType.keys()].sort().map((type) => (byType.get(type) ?? []).sort((a, b) => (a.id < b.id ? -1 : 1)));
  const out: LongQuestion[] = [];
  for (let i = 0; out.length < lists.reduce((n, l) => n + l.length, 0); i += 1)
    for (const list of lists) if (list[i]) out.push(list[i] as LongQuestion);
  return out;
}
