import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../lib/bundling.js';

/**
 * bin/ops/recycle-containers.sh (decisions 0092, 0132) needs an AWS account; here it runs against a
 * stand-in `aws` on the PATH that records each call and answers as the CLI would, for an account in
 * which `live` serves version 7 of the MCP function and 4 of the authorizer. What is held: when
 * $LATEST is what `live` serves, the aliases API Gateway invokes move to newly published versions
 * of that same code (pinned by its SHA-256), directly (no CodeDeploy, so firing alarms cannot stop
 * it), and the sweeper's $LATEST is changed too; when $LATEST differs — the runbook's "Roll the code
 * back by hand" left it at the bad release — nothing is changed and the difference is named.
 */
const run = promisify(execFile);

/** The stand-in: $LATEST of the MCP function carries `$MCP_LATEST_SHA` (and `$MCP_LATEST_MEMORY` MB). */
const FAKE_AWS = `#!/usr/bin/env bash
echo "$*" >> "$AWS_CALLS"
case "$*" in
  *describe-stacks*McpFunctionName*) echo naaba-mcp-fn ;;
  *describe-stacks*AuthorizerFunctionName*) echo naaba-authorizer-fn ;;
  *describe-stacks*SweeperFunctionName*) echo naaba-sweeper-fn ;;
  *get-alias*naaba-mcp-fn*) echo 7 ;;
  *get-alias*naaba-authorizer-fn*) echo 4 ;;
  *get-function-configuration*naaba-mcp-fn*--qualifier*CodeSha256*) echo '"good-mcp-sha"' ;;
  *get-function-configuration*naaba-mcp-fn*CodeSha256*) echo "\\"$MCP_LATEST_SHA\\"" ;;
  *get-function-configuration*naaba-mcp-fn*--qualifier*MemorySize*) echo 1024 ;;
  *get-function-configuration*naaba-mcp-fn*MemorySize*) echo "$MCP_LATEST_MEMORY" ;;
  *get-function-configuration*naaba-authorizer-fn*CodeSha256*) echo '"authorizer-sha"' ;;
  *get-function-configuration*Environment.Variables*) echo '{"NAABA_REGION": "eu-central-1"}' ;;
  *get-function-configuration*Layers*) echo null ;;
  *get-function-configuration*Runtime*) echo '"nodejs24.x"' ;;
  *get-function-configuration*Handler*) echo '"index.handler"' ;;
  *get-function-configuration*MemorySize*) echo 512 ;;
  *get-function-configuration*Timeout*) echo 25 ;;
  *get-function-configuration*Description*) echo "naaba function (recycled 2026-01-01T00:00:00Z)" ;;
  *update-function-configuration*) echo InProgress ;;
  *publish-version*naaba-mcp-fn*) echo 8 ;;
  *publish-version*naaba-authorizer-fn*) echo 5 ;;
  *update-alias*) echo ok ;;
  *wait*) ;;
  *) echo "unexpected aws call: $*" >&2; exit 2 ;;
esac
`;

/** Runs the script against the stand-in: its exit code, what it said, and the calls that change something. */
async function recycle(latest: { sha: string; memory: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-recycle-'));
  try {
    writeFileSync(join(dir, 'aws'), FAKE_AWS);
    chmodSync(join(dir, 'aws'), 0o755);
    const calls = join(dir, 'calls');
    writeFileSync(calls, '');
    const result = await run(
      'bash',
      [join(REPO_ROOT, 'bin/ops/recycle-containers.sh'), 'naaba-eu-central-1', '--region', 'eu-central-1'],
      {
        env: {
          PATH: `${dir}:/usr/bin:/bin`,
          AWS_CALLS: calls,
          MCP_LATEST_SHA: latest.sha,
          MCP_LATEST_MEMORY: String(latest.memory),
        },
      },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );
    const all = readFileSync(calls, 'utf8').trim().split('\n');
    const changes = all
      .filter((c) => !/describe-stacks|get-function-configuration|get-alias/.test(c))
      .map((c) => c.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'NOW'));
    return { ...result, changes, all };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('$LATEST is what live serves: each aliased function gets a new version of that code, live moves to it directly; the sweeper gets a new $LATEST', async () => {
  const { code, stdout, changes, all } = await recycle({ sha: 'good-mcp-sha', memory: 1024 });

  expect(code).toBe(0);
  expect(stdout.trim().split('\n')).toEqual([
    'naaba-mcp-fn: live -> version 8 (the code of version 7, sha256 good-mcp-sha), on fresh containers',
    'naaba-authorizer-fn: live -> version 5 (the code of version 4, sha256 authorizer-sha), on fresh containers',
    'naaba-sweeper-fn: $LATEST updated (same code), on fresh containers',
  ]);
  expect(changes).toEqual([
    '--region eu-central-1 lambda update-function-configuration --function-name naaba-mcp-fn --description naaba function (recycled NOW) --query LastUpdateStatus --output text',
    '--region eu-central-1 lambda wait function-updated-v2 --function-name naaba-mcp-fn',
    '--region eu-central-1 lambda publish-version --function-name naaba-mcp-fn --code-sha256 good-mcp-sha --description recycled NOW --query Version --output text',
    '--region eu-central-1 lambda update-alias --function-name naaba-mcp-fn --name live --function-version 8 --query FunctionVersion --output text',
    '--region eu-central-1 lambda update-function-configuration --function-name naaba-authorizer-fn --description naaba function (recycled NOW) --query LastUpdateStatus --output text',
    '--region eu-central-1 lambda wait function-updated-v2 --function-name naaba-authorizer-fn',
    '--region eu-central-1 lambda publish-version --function-name naaba-authorizer-fn --code-sha256 authorizer-sha --description recycled NOW --query Version --output text',
    '--region eu-central-1 lambda update-alias --function-name naaba-authorizer-fn --name live --function-version 5 --query FunctionVersion --output text',
    '--region eu-central-1 lambda update-function-configuration --function-name naaba-sweeper-fn --description naaba function (recycled NOW) --query LastUpdateStatus --output text',
    '--region eu-central-1 lambda wait function-updated-v2 --function-name naaba-sweeper-fn',
  ]);
  // live's version was compared with $LATEST, field by field.
  expect(all).toContain(
    '--region eu-central-1 lambda get-function-configuration --function-name naaba-mcp-fn --qualifier 7 --query CodeSha256 --output json',
  );
  // Nothing goes through CodeDeploy: a deployment group would stop on a firing alarm.
  expect(all.join('\n')).not.toMatch(/\bdeploy\b/);
});

test('rolled back by hand (live on the good version, $LATEST still the bad code): refused, naming the difference, nothing changed', async () => {
  const { code, stdout, stderr, changes } = await recycle({ sha: 'bad-mcp-sha', memory: 2048 });

  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr.trim().split('\n').slice(0, 4)).toEqual([
    'refused: recycling publishes $LATEST, which would change the code that serves. Nothing was changed.',
    'naaba-mcp-fn: live is version 7, and $LATEST differs from it:',
    '  CodeSha256: live "good-mcp-sha" vs $LATEST "bad-mcp-sha"',
    '  MemorySize: live 1024 vs $LATEST 2048',
  ]);
  expect(changes).toEqual([]);
});

test('the stack outputs it reads exist', async () => {
  const { firstStack } = await import('./support.js');
  const outputs = Object.keys(firstStack().template.toJSON().Outputs ?? {});

  expect(outputs).toEqual(expect.arrayContaining(['McpFunctionName', 'AuthorizerFunctionName', 'SweeperFunctionName']));
});
