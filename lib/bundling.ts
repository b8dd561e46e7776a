import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writePageScript } from '../web/build.js';

/**
 * How every Lambda entry point is bundled, as plain data: the CDK constructs hand it to esbuild
 * through NodejsFunction, and `npm run bench:bundle` hands the very same settings to esbuild's API,
 * so the measured bundle is the shipped bundle. Why CommonJS: docs/decisions/0023.
 */

/** The Lambda runtime's Node major; esbuild targets it and the bench checks it runs on it. */
export const LAMBDA_NODE_MAJOR = 24;

/** Left out of the bundle, with the reason each is safe to leave out (esbuild `--external` patterns). */
export const EXTERNAL_MODULES: Readonly<Record<string, string>> = {
  '@aws-sdk/*': 'the Lambda Node.js runtime ships AWS SDK v3 (required from its NODE_PATH)',
  '@energetic-ai/*': 'the in-process sentence encoder is a laptop embedder (NAABA_EMBEDDER=sentence): Lambda embeds with Bedrock',
  '@electric-sql/*': 'PGlite is the local database: required only inside the on-demand local path, never in Lambda',
  'pg-native': "an optional native binding pg requires only when asked for it; naaba uses pg's JavaScript client",
};

/**
 * Warnings that are expected and silenced: `import.meta` is empty in CommonJS, and only the local
 * migration runner (reached on demand on the PGlite path, never in Lambda) uses it. A test checks
 * that no other module does.
 */
export const SILENCED_WARNINGS = { 'empty-import-meta': 'lambda/adapters/pg/schema/migrate.ts' } as const;

/**
 * Packages replaced in the bundles, with the reason each replacement is never reached: esbuild
 * `alias`, to a module under the repository root (decision 0137).
 */
export const REPLACED_MODULES: Readonly<Record<string, { readonly by: string; readonly why: string }>> = {
  ajv: {
    by: 'lambda/mcp/ajv-left-out.ts',
    why: "the MCP SDK's default JSON Schema validator, used only for elicitation answers; the server is given its own (lambda/mcp/no-elicitation.ts)",
  },
  'ajv-formats': { by: 'lambda/mcp/ajv-left-out.ts', why: "the formats of that default validator's Ajv instance" },
};

/** The repository root: entry points, package.json and the lock file are found from here. */
export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * The migration files of each engine, as the runner finds them (`sql/<engine>/NNNN_name.sql`):
 * baked into every bundle so the functions know which schema they were built for (decision 0071).
 * A file added to `sql/` is in the next build; nothing lists them by hand.
 */
export function bakedMigrations(): Record<'postgres' | 'cockroach', string[]> {
  const files = (engine: string) =>
    readdirSync(`${REPO_ROOT}sql/${engine}`)
      .filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n))
      .sort();
  return { postgres: files('postgres'), cockroach: files('cockroach') };
}

/**
 * The memory page's script, built from web/src/ into web/dist/app.js, which the MCP bundle inlines
 * (lambda/page/files-bundled.ts, decision 0138): run before every bundle. The CDK app runs it as a
 * bundling hook (`PAGE_SCRIPT_HOOK`); a bundle built through esbuild's API calls this first.
 */
export const preparePageScript = (): void => {
  writePageScript();
};

/** The same step as a shell command for NodejsFunction's `beforeBundling` hook, from the bundling's input folder. */
export const pageScriptCommand = (inputDir: string): string => `node ${JSON.stringify(`${inputDir}/web/build.js`)}`;

/** The esbuild settings, named as esbuild names them. */
export const BUNDLING: {
  readonly platform: 'node';
  readonly format: 'cjs' | 'esm';
  readonly target: string;
  readonly minify: boolean;
  readonly sourcemap: boolean;
  readonly mainFields: readonly string[];
  readonly external: readonly string[];
  /** Package name to the absolute path of the module that replaces it (REPLACED_MODULES). */
  readonly alias: Readonly<Record<string, string>>;
  /**
   * Compile-time constants: `NAABA_BUNDLED` picks the page files inlined as text (docs/decisions/0053);
   * `NAABA_MIGRATIONS` is the schema the bundle knows (decision 0071).
   */
  readonly define: Readonly<Record<string, string>>;
} = {
  platform: 'node',
  format: 'cjs',
  target: `node${LAMBDA_NODE_MAJOR}`,
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  external: Object.keys(EXTERNAL_MODULES),
  alias: Object.fromEntries(Object.entries(REPLACED_MODULES).map(([name, { by }]) => [name, `${REPO_ROOT}${by}`])),
  // A getter: the migration files are listed when a bundle is built, not when this module is imported.
  get define() {
    return { 'globalThis.NAABA_BUNDLED': 'true', 'globalThis.NAABA_MIGRATIONS': JSON.stringify(bakedMigrations()) };
  },
};

/** The Lambda entry points, relative to the repository root. */
export const ENTRY_POINTS = {
  mcp: 'lambda/handlers/endpoint.ts',
  authorizer: 'lambda/handlers/authorizer.ts',
  sweeper: 'lambda/handlers/sweeper.ts',
  'release-check': 'lambda/handlers/release-check.ts',
} as const;

export type EntryPoint = keyof typeof ENTRY_POINTS;
