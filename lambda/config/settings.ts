/** Where a setting's value came from, for `naaba check`. */
export type SettingOrigin = 'flag' | 'env' | 'default';

export interface SettingReport {
  readonly name: string;
  readonly value: string;
  readonly origin: SettingOrigin;
}

/** Reads named settings from command-line flags over environment variables over defaults, collecting problems. */
export class Settings {
  readonly report: SettingReport[] = [];
  readonly problems: string[] = [];

  /**
   * `flagNames` spells a setting as the command line takes it (`NAABA_PORT` as `--port`), so a
   * problem with a value given as a flag names the flag the person typed, not its environment twin.
   */
  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly flags: Readonly<Record<string, string | undefined>> = {},
    private readonly flagNames: Readonly<Record<string, string>> = {},
  ) {}

  /** How a problem names a setting and its value: as the flag or as the variable it was given by. */
  given(name: string, value: string): string {
    const flag = this.flagNames[name];
    const byFlag = flag !== undefined && this.raw(name)?.origin === 'flag';
    return byFlag ? `${flag} ${JSON.stringify(value)}` : `${name}=${JSON.stringify(value)}`;
  }

  private raw(name: string): { value: string; origin: SettingOrigin } | undefined {
    const flag = this.flags[name];
    if (flag !== undefined && flag !== '') return { value: flag, origin: 'flag' };
    const env = this.env[name];
    if (env !== undefined && env !== '') return { value: env, origin: 'env' };
    return undefined;
  }

  /** A string setting; `secret` ones are reported as set or not, never by value. */
  string(name: string, fallback: string, options?: { secret?: boolean }): string;
  string(name: string, fallback?: undefined, options?: { secret?: boolean }): string | undefined;
  string(name: string, fallback?: string, options?: { secret?: boolean }): string | undefined {
    const found = this.raw(name);
    const value = found?.value ?? fallback;
    if (value !== undefined) {
      this.report.push({ name, value: options?.secret ? '(set)' : value, origin: found?.origin ?? 'default' });
    }
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const text = this.string(name, String(fallback));
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${this.given(name, text)}: expected an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  /** An integer setting with no default: undefined when not given, in which case something else decides. */
  optionalInteger(name: string, min: number, max: number): number | undefined {
    return this.raw(name) === undefined ? undefined : this.integer(name, min, min, max);
  }

  choice<T extends string>(name: string, choices: readonly T[], fallback: T): T {
    const value = this.string(name, fallback);
    if (!(choices as readonly string[]).includes(value)) {
      this.problems.push(`${this.given(name, value)}: expected one of ${choices.join(', ')}`);
      return fallback;
    }
    return value as T;
  }

  required(name: string, why: string, options?: { secret?: boolean }): string {
    const value = this.string(name, undefined, options);
    if (value === undefined) this.problems.push(`${name} is required ${why}`);
    return value ?? '';
  }
}
