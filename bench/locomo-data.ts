/**
 * LoCoMo (../shared/data/locomo, CC BY-NC: read at run time, never copied into the repository):
 * each conversation's turns as the memories an agent would keep, and its questions of
 * categories 1–4 with the turns that hold the evidence. Splits as ../shared/README.md says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Split } from '../test/eval/data.js';

export interface Turn {
  /** `D<session>:<turn>`, the id the questions' evidence names; a group of turns is named `first..last`. */
  readonly id: string;
  /** What is remembered: the speaker, the words, and the caption of a shared image. */
  readonly content: string;
}

export interface Question {
  readonly text: string;
  readonly category: number;
  readonly evidence: readonly string[];
}

export interface Conversation {
  readonly id: string;
  readonly turns: readonly Turn[];
  readonly questions: readonly Question[];
}

export const LOCOMO_SPLITS: Record<Split, readonly string[]> = {
  dev: ['conv-26', 'conv-30', 'conv-41', 'conv-42', 'conv-43'],
  heldout: ['conv-44', 'conv-47', 'conv-48', 'conv-49', 'conv-50'],
};

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawConversation {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; category: number; evidence: string[] }[];
}

/**
 * How many consecutive turns each memory holds: `min` to `max`, drawn in a fixed pseudo-random
 * sequence when they differ, so that memories of very different lengths share a partition.
 */
export interface TurnsPerMemory {
  readonly min: number;
  readonly max: number;
}

/** `N` or `MIN-MAX`, as `--turns-per-memory` takes it; undefined when malformed. */
export function parseTurnsPerMemory(text: string): TurnsPerMemory | undefined {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  const [min, max] = [Number(match?.[1]), Number(match?.[2] ?? match?.[1])];
  return match && min >= 1 && max >= min && max <= 50 ? { min, max } : undefined;
}

/** A session's turns in consecutive groups (sizes from `per`), one memory each, with the memory of each turn. */
function grouped(turns: readonly Turn[], per: TurnsPerMemory, seed: number, memoryOf: Map<string, string>): Turn[] {
  const out: Turn[] = [];
  let state = seed;
  for (let at = 0; at < turns.length; ) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const size = per.min + ((state >>> 8) % (per.max - per.min + 1));
    const group = turns.slice(at, at + size);
    at += size;
    const [first, last] = [group[0], group[group.length - 1]];
    if (!first || !last) continue;
    const id = group.length === 1 ? first.id : `${first.id}..${last.id}`;
    for (const t of group) memoryOf.set(t.id, id);
    out.push({ id, content: group.map((t) => t.content).join('\n') });
  }
  return out;
}

/** The conversation's memories, session by session, with the memory that holds each turn. */
function turnsOf(
  conversation: Record<string, unknown>,
  per: TurnsPerMemory,
): { memories: Turn[]; memoryOf: Map<string, string> } {
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const memoryOf = new Map<string, string>();
  const memories = sessions.flatMap((m) => {
    const turns = (conversation[m[0]] as RawTurn[]).map((t) => ({
      id: t.dia_id,
      content: `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares ${t.blip_caption}]` : ''}`,
    }));
    return grouped(turns, per, Number(m[1]), memoryOf);
  });
  return { memories, memoryOf };
}

/**
 * The conversations of a split. Evidence strings are split on `;` and spaces and kept only when
 * they name a real turn (the file has a few malformed ones); a question left without evidence is dropped.
 * With `turnsPerMemory` above 1 each memory holds that many consecutive turns of a session (long
 * memories), and a question's evidence is the memories that hold its evidence turns.
 */
export function loadLocomo(dataDir: string, split: Split, turnsPerMemory: TurnsPerMemory = { min: 1, max: 1 }): Conversation[] {
  const all = JSON.parse(readFileSync(join(dataDir, 'locomo', 'locomo10.json'), 'utf8')) as RawConversation[];
  return LOCOMO_SPLITS[split].map((id) => {
    const raw = all.find((c) => c.sample_id === id);
    if (!raw) throw new Error(`LoCoMo has no conversation ${id}`);
    const { memories: turns, memoryOf } = turnsOf(raw.conversation, turnsPerMemory);
    const questions = raw.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({
        text: q.question,
        category: q.category,
        evidence: [...new Set(q.evidence.flatMap((e) => e.split(/[;\s]+/)).flatMap((e) => memoryOf.get(e) ?? []))],
      }))
      .filter((q) => q.evidence.length > 0);
    return { id, turns, questions };
  });
}
