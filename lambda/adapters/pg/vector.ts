/** pgvector's text form, which CockroachDB's VECTOR also accepts: `[0.1,0.2,…]`. */
export function toVectorLiteral(values: readonly number[]): string {
  return `[${values.map((v) => Number(v.toPrecision(7))).join(',')}]`;
}
