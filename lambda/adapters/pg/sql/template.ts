/**
 * SQL as tagged templates with named parameters (decision 0084). A statement is written as it is
 * sent, and every value in it is a named parameter of the statement: `${p.region}` becomes `$n`
 * at render time, the same `$n` wherever the same parameter appears, numbered in order of first
 * use. Nothing else can be spliced in: only parameters, other fragments, and `verbatim` text that
 * the code itself holds (a column name of a rule), never a caller's value.
 */

/** One named value of a statement: rendered as a placeholder, sent beside the text. */
export class Param<T = unknown> {
  constructor(
    readonly name: string,
    readonly value: T,
  ) {}
}

type Part = string | Param | SqlFragment;

/** A piece of SQL with its parameters; render it with {@link toQuery}, or pass it to a client. */
export class SqlFragment {
  /** @internal */
  constructor(readonly parts: readonly Part[]) {}

  /** The rendered text: placeholders numbered from $1. */
  get text(): string {
    return render(this).text;
  }

  /** The parameters' values, in placeholder order. */
  get values(): readonly unknown[] {
    return render(this).values;
  }
}

/** What a client sends: the text, the values of its placeholders, and the statement it renders, if any. */
export interface Query {
  readonly text: string;
  readonly values: readonly unknown[];
  /** The named statement the text renders (`statements/`), for plan checks and traces. */
  readonly statement?: { readonly name: string };
}

/** A fragment: each interpolation must be a parameter or another fragment. */
export function sql(strings: TemplateStringsArray, ...values: readonly (Param | SqlFragment)[]): SqlFragment {
  const parts: Part[] = [];
  strings.forEach((text, i) => {
    if (text) parts.push(text);
    if (i >= values.length) return;
    const value = values[i];
    if (!(value instanceof Param || value instanceof SqlFragment)) {
      throw new TypeError('only parameters and SQL fragments go into a statement: wrap a value with param()');
    }
    parts.push(value);
  });
  return new SqlFragment(parts);
}

/** Text the code holds (an identifier, a keyword), never a caller's value. */
export const verbatim = (text: string): SqlFragment => new SqlFragment([text]);

/** Fragments joined by a separator (`, ` by default). */
export function join(fragments: readonly SqlFragment[], separator = ', '): SqlFragment {
  return new SqlFragment(fragments.flatMap((f, i) => (i === 0 ? [f] : [separator, f])));
}

/** A parameter made on the spot: one element of a list, or a value computed from the inputs. */
export const param = <T>(name: string, value: T): Param<T> => new Param(name, value);

/** Values a parameter carries as they are: anything but a plain object of further parameters. */
type Leaf = string | number | boolean | bigint | Date | null | undefined | readonly unknown[];

/** A statement's inputs, each turned into a parameter; nested plain objects become groups of parameters. */
export type Params<T> = {
  readonly [K in keyof T]-?: T[K] extends Leaf ? Param<T[K]> : Params<T[K]>;
};

const isGroup = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && !Buffer.isBuffer(value);

/** The inputs of one statement as named parameters: `p.scope.region` is always the same parameter. */
export function params<T extends object>(values: T, prefix = ''): Params<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const name = prefix ? `${prefix}.${key}` : key;
    out[key] = isGroup(value) ? params(value, name) : new Param(name, value);
  }
  return out as Params<T>;
}

/** The text with `$n` placeholders, one per distinct parameter in order of first use, and their values. */
export function render(fragment: SqlFragment): { text: string; values: unknown[] } {
  const numbers = new Map<Param, number>();
  const values: unknown[] = [];
  const write = (part: Part): string => {
    if (typeof part === 'string') return part;
    if (part instanceof SqlFragment) return part.parts.map(write).join('');
    let n = numbers.get(part);
    if (n === undefined) {
      values.push(part.value);
      n = values.length;
      numbers.set(part, n);
    }
    return `$${n}`;
  };
  return { text: write(fragment), values };
}

/** A fragment ready to send, named for the statement it renders. */
export function toQuery<S extends { readonly name: string }>(fragment: SqlFragment, statement: S): Query & { statement: S };
export function toQuery(fragment: SqlFragment): Query;
export function toQuery(fragment: SqlFragment, statement?: { readonly name: string }): Query {
  const { text, values } = render(fragment);
  return statement ? { text, values, statement } : { text, values };
}
