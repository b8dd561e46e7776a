import type { RuntimeConfig } from '../../lambda/config/env.js';
import { ConfigError } from '../../lambda/config/errors.js';
import { describeRecorded, type FolderRules, readFolderRules, sameRules } from '../../lambda/dev/folder-rules.js';

/**
 * Which curation rules a command runs with on a local data folder (decision 0104): rules given on
 * the command line or in the environment, else those the folder was served with. A command that
 * does not serve (sweep, export, import) refuses given rules that differ from the folder's, naming
 * both: serving is how a folder's rules change.
 */

/** Rules were given (`--config`, `NAABA_CONFIG`, `NAABA_CURATION`) rather than left to the defaults. */
const given = (config: RuntimeConfig): boolean => config.rulesSource !== 'defaults';

const recordedOf = (config: RuntimeConfig): FolderRules | undefined =>
  config.database.kind === 'pglite' ? readFolderRules(config.dataDir) : undefined;

const adopt = (config: RuntimeConfig, recorded: FolderRules): RuntimeConfig => ({
  ...config,
  rules: recorded.rules,
  rulesSource: describeRecorded(config.dataDir, recorded),
});

/** For sweep, export and import: the folder's rules, or given ones only when they are the same. */
export function followFolderRules(config: RuntimeConfig): RuntimeConfig {
  const recorded = recordedOf(config);
  if (!recorded) return config;
  if (!given(config)) return adopt(config, recorded);
  if (sameRules(config.rules, recorded.rules)) return config;
  throw new ConfigError(
    `${config.dataDir} was served with other curation rules: ${describeRecorded(config.dataDir, recorded)}, not those of ${config.rulesSource}. Drop --config to use the folder's rules, or serve the folder with --config ${config.rulesSource} to change them`,
  );
}

/** What `serve` does with the folder's rules: given ones are recorded (saying what they replace), else the recorded ones apply. */
export interface ServedRules {
  readonly config: RuntimeConfig;
  /** Record `config.rules` in the folder once the server starts. */
  readonly record: boolean;
  /** A line for the banner when the given rules replace other recorded ones. */
  readonly replaced?: string;
}

export function serveFolderRules(config: RuntimeConfig): ServedRules {
  if (config.database.kind !== 'pglite') return { config, record: false };
  const recorded = readFolderRules(config.dataDir);
  if (!given(config)) return recorded ? { config: adopt(config, recorded), record: false } : { config, record: true };
  const replaced =
    recorded && !sameRules(config.rules, recorded.rules)
      ? `the folder's rules change: it was served with ${recorded.source} (recorded ${recorded.recordedAt}), now ${config.rulesSource}`
      : undefined;
  return { config, record: true, ...(replaced ? { replaced } : {}) };
}
