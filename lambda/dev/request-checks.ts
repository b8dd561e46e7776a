import { isRequestMethod } from '../http/api-gateway.js';
import { type OriginPolicy, originProblem, parseHost } from '../http/origin.js';
import { PAGE_PATHS } from '../page/files.js';
import { oauthMethods } from '../sign-in/routes.js';

/**
 * What the local server refuses before any work, as a clear 4xx (decision 0066): a request
 * target that is not a path (absolute or asterisk form), a Host that is malformed (user info, a
 * path, a fragment) or not this endpoint's, a path no route has, a method its route does not
 * answer. Nothing the caller sent is echoed back.
 */

export interface Refusal {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly message: string;
}

const refuse = (status: number, message: string, headers: Record<string, string> = {}): Refusal => ({
  status,
  message,
  headers,
});

const READ = ['GET', 'HEAD'];
/** `/api/{proxy+}`: any method, behind the authorizer, as the stack declares it. */
const API_PROXY = /^\/api\/.+/;
const ANY = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods each route answers (the stack's resources); undefined for a path no route has. */
export function methodsOf(path: string): readonly string[] | undefined {
  if (path === '/mcp') return ['POST', 'GET', 'DELETE'];
  if (path === '/healthz') return ['GET'];
  if (PAGE_PATHS.includes(path)) return READ;
  if (API_PROXY.test(path)) return ANY;
  return oauthMethods(path);
}

/** The path and query of an origin-form target (`/mcp?x=1`), or undefined for any other form. */
export function originForm(target: string | undefined): URL | undefined {
  if (target === undefined || !target.startsWith('/') || target.startsWith('//')) return undefined;
  try {
    return new URL(target, 'http://local.invalid');
  } catch {
    return undefined;
  }
}

/** Why the request is refused before any work, or undefined when it may go on. */
export function refusalOf(
  method: string,
  target: string | undefined,
  host: string | undefined,
  origins: OriginPolicy,
): Refusal | undefined {
  const url = originForm(target);
  if (!url) return refuse(400, 'the request target must be a path such as /mcp');
  if (host === undefined || !parseHost(host)) return refuse(400, 'a Host header of a host name and an optional port is required');
  if (originProblem(host, null, origins)) return refuse(403, 'this endpoint does not answer to that Host header');
  if (url.pathname.startsWith('/admin/')) return undefined;
  const methods = methodsOf(url.pathname);
  if (!methods) return refuse(404, 'not found; the MCP endpoint is POST /mcp');
  // The OAuth routes answer a wrong method themselves, with an OAuth error body.
  if (!methods.includes(method) && (!isRequestMethod(method) || !oauthMethods(url.pathname))) {
    return refuse(405, 'method not allowed here', { allow: methods.join(', ') });
  }
  return undefined;
}
