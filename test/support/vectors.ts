/** Hand-made unit vectors whose cosine distances a test can reason about exactly. */
export const DIMENSIONS = 256;

/** The unit vector along axis `i`. */
export function axis(i: number, dimensions = DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  v[i] = 1;
  return v;
}

/** A unit vector between axis `i` (weight 1) and axis `j` (weight `w`): closer to `i` the smaller `w` is. */
export function lean(i: number, j: number, w: number, dimensions = DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const n = Math.hypot(1, w);
  v[i] = 1 / n;
  v[j] = w / n;
  return v;
}
