import { ConfigError } from './errors.js';
import { Settings } from './settings.js';

/** What a release check is told by the stack (lib/constructs/release-checks.ts). */
export interface ReleaseCheckConfig {
  /** The new versions, as qualified ARNs. */
  readonly mcp: string;
  readonly authorizer: string;
  /** The region whose keys the new versions serve: the verification key must be one of them. */
  readonly region: string;
  /** Where the verification key is kept (a secret holding the token, nothing else). */
  readonly keySecretId: string;
  /** The bake after traffic: how long, and which alarms per deployment group. */
  readonly bakeMinutes: number;
  readonly bakeAlarms: readonly { readonly group: string; readonly alarms: readonly string[] }[];
}

function bakeAlarms(text: string | undefined): ReleaseCheckConfig['bakeAlarms'] {
  if (text === undefined) return [];
  const parsed: unknown = JSON.parse(text);
  const ok =
    Array.isArray(parsed) &&
    parsed.every(
      (g: { group?: unknown; alarms?: unknown }) =>
        typeof g?.group === 'string' && Array.isArray(g.alarms) && g.alarms.every((a) => typeof a === 'string'),
    );
  if (!ok) throw new ConfigError('NAABA_BAKE_ALARMS must be a JSON list of {"group": …, "alarms": [names]}');
  return parsed as ReleaseCheckConfig['bakeAlarms'];
}

/** The release check's settings from its environment, or a ConfigError naming every problem. */
export function readReleaseCheckConfig(env: Readonly<Record<string, string | undefined>>): ReleaseCheckConfig {
  const s = new Settings(env);
  const why = 'for the release checks (the stack sets it)';
  const config = {
    mcp: s.required('NAABA_CHECK_MCP', why),
    authorizer: s.required('NAABA_CHECK_AUTHORIZER', why),
    region: s.required('NAABA_REGION', why),
    keySecretId: s.required('NAABA_CHECK_KEY_SECRET_ID', why),
    bakeMinutes: s.integer('NAABA_BAKE_MINUTES', 0, 0, 14),
  };
  if (s.problems.length > 0) throw new ConfigError(`release check settings:\n  ${s.problems.join('\n  ')}`);
  return { ...config, bakeAlarms: bakeAlarms(s.string('NAABA_BAKE_ALARMS')) };
}
