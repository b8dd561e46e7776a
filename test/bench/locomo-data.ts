/**
 * LoCoMo (../shared/data/locomo, CC BY-NC: read at run time, never copied into the repository):
 * each conversation's turns as the memories an agent would keep, and its questions of
 * categories 1–4 with the turns that hold the evidence. Splits as ../shared/README.md says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Split } from '../eval/data.js';

export interface Turn {
  /** `D<session>:<turn>`, the id the questions' evidence names. */
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

function turnsOf(conversation: Record<string, unknown>): Turn[] {
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  return sessions.flatMap((m) =>
    (conversation[m[0]] as RawTurn[]).map((t) => ({
      id: t.dia_id,
      content: `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares ${t.blip_caption}]` : ''}`,
    })),
  );
}

/**
 * The conversations of a split. Evidence strings are split on `;` and spaces and kept only when
 * they name a real turn (the file has a few malformed ones); a question left without evidence is dropped.
 */
export function loadLocomo(dataDir: string, split: Split): Conversation[] {
  const all = JSON.parse(readFileSync(join(dataDir, 'locomo', 'locomo10.json'), 'utf8')) as RawConversation[];
  return LOCOMO_SPLITS[split].map((id) => {
    const raw = all.find((c) => c.sample_id === id);
    if (!raw) throw new Error(`LoCoMo has no conversation ${id}`);
    const turns = turnsOf(raw.conversation);
    const known = new Set(turns.map((t) => t.id));
    const questions = raw.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({
        text: q.question,
        category: q.category,
        evidence: [...new Set(q.evidence.flatMap((e) => e.split(/[;\s]+/)).filter((e) => known.has(e)))],
      }))
      .filter((q) => q.evidence.length > 0);
    return { id, turns, questions };
  });
}
