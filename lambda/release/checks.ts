import { randomBytes } from 'node:crypto';
import { checkProxyEvent, checkTokenEvent } from '../http/gateway-events.js';
import type { Principal } from '../memory/model.js';

/** What invoking a function answered: its result, or the error it failed with (Lambda's FunctionError). */
export type Invocation =
  | { readonly kind: 'answered'; readonly payload: unknown }
  | { readonly kind: 'failed'; readonly errorType: string; readonly errorMessage: string };

/** Invokes one published version of a function, by its qualified ARN, synchronously. */
export interface VersionInvoker {
  invoke(functionArn: string, event: unknown): Promise<Invocation>;
}

/** The versions a deploy is about to put behind the aliases, and the region their keys belong to. */
export interface ReleaseTargets {
  readonly mcp: string;
  readonly authorizer: string;
  readonly region: string;
}

/** One check's outcome: a name, whether it passed, and what was seen (never a token, never content). */
export interface CheckResult {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

const TOOLS_LIST = 'MCP function: tools/list';
const RECALL = 'MCP function: recall with the verification key';
const JUDGE = "MCP function: the judge answers (two remembers and a forget of the verification key's own memories)";

/** The tools a release must still list (DESIGN §3). */
export const EXPECTED_TOOLS = ['curation_state', 'forget', 'recall', 'remember'] as const;

/** What the MCP function answered over API Gateway's proxy shape, or why it did not. */
interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** A failed invocation, or an answer not in the proxy result shape, is described instead of parsed. */
function httpAnswer(invocation: Invocation): HttpAnswer | string {
  if (invocation.kind === 'failed') return `the function failed: ${invocation.errorType}`;
  const result = invocation.payload as { statusCode?: unknown; body?: unknown } | null;
  if (typeof result?.statusCode !== 'number') return 'the function answered no HTTP result';
  try {
    return { status: result.statusCode, body: typeof result.body === 'string' && result.body ? JSON.parse(result.body) : null };
  } catch {
    return { status: result.statusCode, body: null };
  }
}

const pass = (check: string, detail: string): CheckResult => ({ check, ok: true, detail });
const fail = (check: string, detail: string): CheckResult => ({ check, ok: false, detail });

async function healthz(invoker: VersionInvoker, targets: ReleaseTargets): Promise<CheckResult> {
  const check = 'MCP function: GET /healthz';
  const answer = httpAnswer(await invoker.invoke(targets.mcp, checkProxyEvent('GET', '/healthz')));
  if (typeof answer === 'string') return fail(check, answer);
  const ok = answer.status === 200 && (answer.body as { status?: unknown } | null)?.status === 'ok';
  return ok ? pass(check, '200 ok') : fail(check, `answered ${answer.status}`);
}

async function refusesUnknownKey(invoker: VersionInvoker, targets: ReleaseTargets): Promise<CheckResult> {
  const check = 'authorizer: an unknown key is refused';
  const unknown = `nb_${randomBytes(32).toString('base64url')}`;
  const answer = await invoker.invoke(targets.authorizer, checkTokenEvent(unknown, targets.region));
  if (answer.kind === 'failed' && answer.errorMessage === 'Unauthorized') return pass(check, 'Unauthorized (401)');
  return fail(check, answer.kind === 'failed' ? `failed with ${answer.errorType}` : 'it answered a policy');
}

async function allowsVerificationKey(
  invoker: VersionInvoker,
  targets: ReleaseTargets,
  token: string,
): Promise<{ result: CheckResult; principal?: Principal }> {
  const check = 'authorizer: the verification key is allowed';
  const answer = await invoker.invoke(targets.authorizer, checkTokenEvent(token, targets.region));
  if (answer.kind === 'failed') return { result: fail(check, `failed with ${answer.errorType}: ${answer.errorMessage}`) };
  const result = answer.payload as {
    policyDocument?: { Statement?: { Effect?: string }[] };
    context?: Record<string, unknown>;
  } | null;
  const effect = result?.policyDocument?.Statement?.[0]?.Effect;
  const { userId, region, agent, keyId } = result?.context ?? {};
  if (effect !== 'Allow' || [userId, region, agent, keyId].some((v) => typeof v !== 'string')) {
    return { result: fail(check, `answered ${effect ?? 'no policy'}${region ? ` for region ${String(region)}` : ''}`) };
  }
  const principal = { userId, region, agent, keyId } as Principal;
  return { result: pass(check, `Allow, region ${principal.region}`), principal };
}

async function mcpCall(
  invoker: VersionInvoker,
  targets: ReleaseTargets,
  principal: Principal,
  method: string,
  params: Record<string, unknown>,
): Promise<{ answer: HttpAnswer | string; result?: Record<string, unknown> }> {
  const event = checkProxyEvent('POST', '/mcp', { jsonrpc: '2.0', id: 1, method, params }, principal);
  const answer = httpAnswer(await invoker.invoke(targets.mcp, event));
  if (typeof answer === 'string') return { answer };
  const result = (answer.body as { result?: Record<string, unknown> } | null)?.result;
  return result ? { answer, result } : { answer };
}

async function listsTools(invoker: VersionInvoker, targets: ReleaseTargets, principal: Principal): Promise<CheckResult> {
  const check = TOOLS_LIST;
  const { answer, result } = await mcpCall(invoker, targets, principal, 'tools/list', {});
  if (typeof answer === 'string') return fail(check, answer);
  const names = ((result?.tools as { name?: unknown }[] | undefined) ?? []).map((t) => String(t.name)).sort();
  const ok = answer.status === 200 && JSON.stringify(names) === JSON.stringify(EXPECTED_TOOLS);
  return ok ? pass(check, names.join(', ')) : fail(check, `answered ${answer.status} with tools [${names.join(', ')}]`);
}

async function recalls(invoker: VersionInvoker, targets: ReleaseTargets, principal: Principal): Promise<CheckResult> {
  const check = RECALL;
  const params = { name: 'recall', arguments: { query: 'naaba release check', limit: 1 } };
  const { answer, result } = await mcpCall(invoker, targets, principal, 'tools/call', params);
  if (typeof answer === 'string') return fail(check, answer);
  if (answer.status !== 200 || !result) return fail(check, `answered ${answer.status}`);
  // A tool error's text is the service's safe message (an embedder outage, a store error): no content.
  const text = (result.content as { text?: unknown }[] | undefined)?.[0]?.text;
  return result.isError === true ? fail(check, `tool error: ${String(text).slice(0, 200)}`) : pass(check, '200, no tool error');
}

/** The structured content of a tool call, or why there is none. */
async function toolCall(
  invoker: VersionInvoker,
  targets: ReleaseTargets,
  principal: Principal,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | string> {
  const { answer, result } = await mcpCall(invoker, targets, principal, 'tools/call', { name, arguments: args });
  if (typeof answer === 'string') return answer;
  if (answer.status !== 200 || !result) return `${name} answered ${answer.status}`;
  const text = (result.content as { text?: unknown }[] | undefined)?.[0]?.text;
  if (result.isError === true) return `${name}: tool error: ${String(text).slice(0, 200)}`;
  return (result.structuredContent as Record<string, unknown> | undefined) ?? `${name} answered no structured content`;
}

/**
 * The judge asked once (issue 48): a session memory of the verification user, then a restatement
 * of it, which asks the judge (not an exact restatement, so the model is called); any verdict
 * passes, `unavailable` fails. Both memories are forgotten, whatever happened, so the user's
 * memories stay empty for the next check.
 */
async function judges(invoker: VersionInvoker, targets: ReleaseTargets, principal: Principal): Promise<CheckResult> {
  const nonce = randomBytes(6).toString('hex');
  const ids: string[] = [];
  const remember = async (content: string) => {
    const stored = await toolCall(invoker, targets, principal, 'remember', { content, kind: 'session' });
    if (typeof stored !== 'string' && typeof stored.id === 'string') ids.push(stored.id);
    return stored;
  };
  try {
    const first = await remember(`The naaba release check ${nonce} stores this session note.`);
    if (typeof first === 'string') return fail(JUDGE, first);
    const second = await remember(`Release check ${nonce} of naaba: this session note is stored.`);
    if (typeof second === 'string') return fail(JUDGE, second);
    const verdict = String(second.judge);
    if (verdict === 'unavailable') return fail(JUDGE, 'the judge gave no verdict (unavailable)');
    if (verdict === 'not_asked' || verdict === 'exact') return fail(JUDGE, `the judge was not asked (${verdict})`);
    return pass(JUDGE, `verdict ${verdict}`);
  } finally {
    const unique = [...new Set(ids)];
    if (unique.length > 0) await toolCall(invoker, targets, principal, 'forget', { ids: unique });
  }
}

/**
 * Every check of a release, in order; the calls that need the verification key's principal are
 * failed, not skipped, when the authorizer did not allow it. Never throws for a failing check.
 */
export async function releaseChecks(invoker: VersionInvoker, targets: ReleaseTargets, token: string): Promise<CheckResult[]> {
  const results = [await healthz(invoker, targets), await refusesUnknownKey(invoker, targets)];
  const allowed = await allowsVerificationKey(invoker, targets, token);
  results.push(allowed.result);
  if (!allowed.principal) {
    const skipped = 'not run: the authorizer did not allow the verification key';
    return [...results, fail(TOOLS_LIST, skipped), fail(RECALL, skipped), fail(JUDGE, skipped)];
  }
  results.push(await listsTools(invoker, targets, allowed.principal), await recalls(invoker, targets, allowed.principal));
  results.push(await judges(invoker, targets, allowed.principal));
  return results;
}
