/**
 * The settings' defaults that commands and the page name back to a person (a `naaba connect` line
 * leaves out a flag that says only the default). No imports: the page's API reads it too.
 */

/** The local data folder when none is given, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.naaba';

/** The region when none is given: a local server's. */
export const DEFAULT_REGION = 'local';
