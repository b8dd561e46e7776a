const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses "90s", "15m", "24h", "30d" into seconds; undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,7})([smhd])$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * (UNITS[match[2] ?? ''] ?? 0);
  return seconds > 0 ? seconds : undefined;
}

/** The shortest exact rendering of a number of seconds: 86400 → "1d", 90 → "90s". */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
