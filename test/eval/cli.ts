/** Small helpers shared by the evaluation scripts: options, a progress line, a bounded worker pool. */

export class EvalUsageError extends Error {
  override name = 'EvalUsageError';
}

/** `--name value` and `--name=value` options; anything not listed is a usage error. */
export function parseOptions(argv: readonly string[], known: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (word === '--') continue;
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(word);
    if (!match?.[1] || !known.includes(match[1]))
      throw new EvalUsageError(`unknown argument ${word}; expected ${known.map((k) => `--${k}`).join(', ')}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new EvalUsageError(`--${match[1]} needs a value`);
    out.set(match[1], value);
  }
  return out;
}

export function choice<T extends string>(options: Map<string, string>, name: string, choices: readonly T[], fallback: T): T {
  const value = options.get(name) ?? fallback;
  if (!(choices as readonly string[]).includes(value)) throw new EvalUsageError(`--${name} must be one of ${choices.join(', ')}`);
  return value as T;
}

export function positiveInteger(options: Map<string, string>, name: string, fallback: number): number {
  const value = Number(options.get(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new EvalUsageError(`--${name} must be a positive integer`);
  return value;
}

/** One line on stderr that rewrites itself on a terminal, and prints every tenth otherwise (CI logs). */
export class Progress {
  private lastTenth = -1;
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(done: number, note = ''): void {
    const line = `${this.label}: ${done}/${this.total}${note ? ` (${note})` : ''}`;
    if (process.stderr.isTTY) {
      const now = Date.now();
      if (done < this.total && now - this.lastDraw < 100) return;
      this.lastDraw = now;
      process.stderr.write(`\r${line}\u001b[K${done === this.total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done * 10) / Math.max(1, this.total));
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      process.stderr.write(`${line}\n`);
    }
  }
}

/** Runs `work` over `items` with at most `concurrency` in flight; results keep the items' order. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** `12.3 %` with the counts behind it. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return 'n/a';
  return `${((100 * part) / whole).toFixed(1)} % (${part} of ${whole})`;
}
