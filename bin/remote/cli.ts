import { parseArgs } from 'node:util';
import { environment } from '../../lambda/config/env.js';
import { type CheckResult, verifyRemote } from './verify.js';

const USAGE = `usage: npm run verify:remote -- --url URL --token T [--token2 T2]

  --url     the endpoint's MCP URL (the stack output McpUrl), or its stage URL
  --token   a key of the endpoint's region; NAABA_VERIFY_TOKEN instead keeps it out of the process list
  --token2  a key of another user of the same region, to check isolation (or NAABA_VERIFY_TOKEN2)

Remembers one throwaway memory (kind session if it exists), checks recall, isolation and forget,
and deletes it again. Use keys made for verification: at a kind's ceiling, remembering evicts.
Exit status: 0 when every check passed, 1 when one failed, 2 on a usage error.`;

const MARK: Record<CheckResult['status'], string> = { pass: '✓', fail: '✗', skip: '-' };

function line(result: CheckResult): string {
  const time = result.status === 'skip' ? '' : ` (${Math.round(result.ms)} ms)`;
  return `  ${MARK[result.status]} ${result.name}: ${result.detail}${time}`;
}

/** Runs verify-remote from the command line; returns the exit status. Tokens are never printed. */
export async function main(argv: readonly string[], print: (text: string) => void = console.log): Promise<number> {
  let values: { url?: string | undefined; token?: string | undefined; token2?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { url: { type: 'string' }, token: { type: 'string' }, token2: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    print(`verify-remote: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const env = environment();
  const token = values.token ?? env.NAABA_VERIFY_TOKEN;
  const token2 = values.token2 ?? env.NAABA_VERIFY_TOKEN2;
  if (values.help || !values.url || !token) {
    print(values.help ? USAGE : `verify-remote: --url and --token are required\n\n${USAGE}`);
    return values.help ? 0 : 2;
  }
  print(`naaba verify-remote: ${values.url}`);
  const report = await verifyRemote({ url: values.url, token, token2, onResult: (r) => print(line(r)) });
  const failed = report.results.filter((r) => r.status === 'fail').length;
  const passed = report.results.filter((r) => r.status === 'pass').length;
  print(failed === 0 ? `all ${passed} checks passed` : `${failed} of ${report.results.length} checks failed`);
  return report.ok ? 0 : 1;
}
