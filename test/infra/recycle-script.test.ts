import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../lib/bundling.js';

/**
 * bin/ops/recycle-containers.sh (decision 0092) needs an AWS account; here it runs against a
 * stand-in `aws` on the PATH that records each call and answers as the CLI would. What is held:
 * the aliases API Gateway invokes are moved to newly published versions directly (no CodeDeploy,
 * so firing alarms cannot stop it), each after a configuration change that makes Lambda publish,
 * and the sweeper's $LATEST is changed too.
 */
const run = promisify(execFile);

const FAKE_AWS = `#!/usr/bin/env bash
echo "$*" >> "$AWS_CALLS"
case "$*" in
  *describe-stacks*McpFunctionName*) echo naaba-mcp-fn ;;
  *describe-stacks*AuthorizerFunctionName*) echo naaba-authorizer-fn ;;
  *describe-stacks*SweeperFunctionName*) echo naaba-sweeper-fn ;;
  *get-function-configuration*) echo "naaba function (recycled 2026-01-01T00:00:00Z)" ;;
  *update-function-configuration*) echo InProgress ;;
  *publish-version*naaba-mcp-fn*) echo 8 ;;
  *publish-version*naaba-authorizer-fn*) echo 5 ;;
  *update-alias*) echo ok ;;
  *wait*) ;;
  *) echo "unexpected aws call: $*" >&2; exit 2 ;;
esac
`;

test('each aliased function gets a new version and live moves to it directly; the sweeper gets a new $LATEST', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-recycle-'));
  try {
    writeFileSync(join(dir, 'aws'), FAKE_AWS);
    chmodSync(join(dir, 'aws'), 0o755);
    const calls = join(dir, 'calls');
    writeFileSync(calls, '');

    const { stdout } = await run(
      'bash',
      [join(REPO_ROOT, 'bin/ops/recycle-containers.sh'), 'naaba-eu-central-1', '--region', 'eu-central-1'],
      {
        env: { PATH: `${dir}:/usr/bin:/bin`, AWS_CALLS: calls },
      },
    );

    expect(stdout.trim().split('\n')).toEqual([
      'naaba-mcp-fn: live -> version 8',
      'naaba-authorizer-fn: live -> version 5',
      'naaba-sweeper-fn: $LATEST updated',
    ]);
    const made = readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .filter((c) => !c.includes('describe-stacks') && !c.includes('get-function-configuration'))
      .map((c) => c.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'NOW'));
    expect(made).toEqual([
      '--region eu-central-1 lambda update-function-configuration --function-name naaba-mcp-fn --description naaba function (recycled NOW) --query LastUpdateStatus --output text',
      '--region eu-central-1 lambda wait function-updated-v2 --function-name naaba-mcp-fn',
      '--region eu-central-1 lambda publish-version --function-name naaba-mcp-fn --description recycled NOW --query Version --output text',
      '--region eu-central-1 lambda update-alias --function-name naaba-mcp-fn --name live --function-version 8 --query FunctionVersion --output text',
      '--region eu-central-1 lambda update-function-configuration --function-name naaba-authorizer-fn --description naaba function (recycled NOW) --query LastUpdateStatus --output text',
      '--region eu-central-1 lambda wait function-updated-v2 --function-name naaba-authorizer-fn',
      '--region eu-central-1 lambda publish-version --function-name naaba-authorizer-fn --description recycled NOW --query Version --output text',
      '--region eu-central-1 lambda update-alias --function-name naaba-authorizer-fn --name live --function-version 5 --query FunctionVersion --output text',
      '--region eu-central-1 lambda update-function-configuration --function-name naaba-sweeper-fn --description naaba function (recycled NOW) --query LastUpdateStatus --output text',
      '--region eu-central-1 lambda wait function-updated-v2 --function-name naaba-sweeper-fn',
    ]);
    // Nothing goes through CodeDeploy: a deployment group would stop on a firing alarm.
    expect(readFileSync(calls, 'utf8')).not.toMatch(/\bdeploy\b/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the stack outputs it reads exist', async () => {
  const { firstStack } = await import('./support.js');
  const outputs = Object.keys(firstStack().template.toJSON().Outputs ?? {});

  expect(outputs).toEqual(expect.arrayContaining(['McpFunctionName', 'AuthorizerFunctionName', 'SweeperFunctionName']));
});
