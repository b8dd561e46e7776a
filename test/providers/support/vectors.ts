/** A unit vector of `n` dimensions, different for each seed. */
export function unitVector(n: number, seed = 1): number[] {
  const raw = Array.from({ length: n }, (_, i) => Math.sin(seed * (i + 1)));
  const norm = Math.hypot(...raw);
  return raw.map((v) => v / norm);
}
