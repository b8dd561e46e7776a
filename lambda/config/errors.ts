/** Configuration that cannot run: the message names every bad setting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
