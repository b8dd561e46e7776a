import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../../lambda/adapters/local/sentence-embedder.js';
import { DEFAULT_DATA_DIR } from '../eval/data.js';
import { loadLocomo } from './locomo-data.js';
import { dot, fusedScores, LexicalReplica } from './replicas.js';

const embedder = process.env.EMB === 'sentence' ? new SentenceEmbedder() : new LocalEmbedder(256);
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const nearest = (cs: number[][], v: number[]) => {
  let b = 0,
    bs = -Infinity;
  cs.forEach((c, i) => {
    const s = dot(c, v);
    if (s > bs) {
      bs = s;
      b = i;
    }
  });
  return b;
};
function follow(scored: [string, number][]): string[] {
  const scores = new Map(scored);
  for (const [id, score] of scored.slice(0, 10)) {
    const m = /^(.*):D(\d+):(\d+)$/.exec(id)!;
    for (const step of [1, 2]) {
      const n = `${m[1]}:D${m[2]}:${Number(m[3]) + step}`;
      scores.set(n, Math.max(scores.get(n) ?? 0, 0.6 * score));
    }
  }
  return [...scores].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([id]) => id);
}
async function main() {
  const convs = [...loadLocomo(DEFAULT_DATA_DIR, 'dev'), ...loadLocomo(DEFAULT_DATA_DIR, 'heldout')];
  const mems = convs.flatMap((c) => c.turns.map((t) => ({ id: `${c.id}:${t.id}`, content: t.content })));
  const qs = loadLocomo(DEFAULT_DATA_DIR, 'dev').flatMap((c) =>
    c.questions.map((q) => ({ text: q.text, cat: q.category, ev: q.evidence.map((e) => `${c.id}:${e}`) })),
  );
  const vecs: number[][] = [];
  for (const m of mems) vecs.push(await embedder.embed(m.content));
  const size = mems.length,
    cells = Math.round(Math.sqrt(size)),
    next = random(19);
  let cents = Array.from({ length: cells }, () => [...vecs[Math.floor(next() * size)]!]);
  let cellOf = vecs.map((v) => nearest(cents, v));
  for (let r = 0; r < 3; r++) {
    cents = cents.map((old, c) => {
      const ms = vecs.filter((_, i) => cellOf[i] === c);
      if (!ms.length) return old;
      const mean = old.map((_, j) => ms.reduce((s, m) => s + m[j]!, 0) / ms.length);
      const n = Math.hypot(...mean) || 1;
      return mean.map((x) => x / n);
    });
    cellOf = vecs.map((v) => nearest(cents, v));
  }
  const lex = new LexicalReplica(mems);
  const asked = [];
  for (const q of qs) {
    const qv = await embedder.embed(q.text);
    const sims = vecs.map((v) => dot(v, qv));
    const csims = cents
      .map((c) => dot(c, qv))
      .map((s, i) => ({ s, i }))
      .sort((a, b) => b.s - a.s)
      .map((x) => x.i);
    asked.push({ q, sims, csims, lexical: lex.search(q.text) });
  }
  console.log(`${embedder.name} ${size} memories, ${cells} cells, ${qs.length} dev questions`);
  for (const probes of [0, 8, 16, 24, 32]) {
    let ok = 0,
      mh = 0,
      mhn = 0,
      read = 0;
    for (const a of asked) {
      const allowed = probes === 0 ? null : new Set(a.csims.slice(0, probes));
      const idx = [...a.sims.keys()].filter((i) => !allowed || allowed.has(cellOf[i]!));
      read += idx.length / size;
      const vector = idx
        .map((i) => ({ id: mems[i]!.id, distance: 1 - a.sims[i]! }))
        .sort((x, y) => x.distance - y.distance || (x.id < y.id ? -1 : 1))
        .slice(0, 50);
      const top = new Set(follow(fusedScores(vector, a.lexical, embedder.unrelatedBeyond)).slice(0, 10));
      const hit = a.q.ev.every((e) => top.has(e));
      ok += +hit;
      if (a.q.cat === 1) {
        mhn++;
        mh += +hit;
      }
    }
    console.log(
      `probes ${probes || 'exact'}: read ${((100 * read) / asked.length).toFixed(1)} %  recall_all@10 ${((100 * ok) / asked.length).toFixed(1)} %  mh ${((100 * mh) / mhn).toFixed(1)}`,
    );
  }
}
main();
