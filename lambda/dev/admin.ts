import { timingSafeEqual } from 'node:crypto';
import { KeyError, type KeyService } from '../auth/keys.js';
import type { RegionSweepReport } from '../region-sweep.js';

/**
 * Key administration through a running local server, for the CLI: the embedded database belongs
 * to the server process while it runs. Authenticated with the secret in the data folder's note.
 */

export interface AdminRequest {
  readonly method: string;
  readonly path: string;
  readonly secret: string | undefined;
  readonly body: string;
}

export interface AdminResponse {
  readonly status: number;
  readonly body: unknown;
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What the admin routes act on: the keys, and the server's own sweep (`naaba sweep` while it runs). */
export interface AdminTargets {
  readonly keys: KeyService;
  readonly sweep?: () => Promise<RegionSweepReport>;
}

export async function handleAdmin(request: AdminRequest, secret: string, targets: AdminTargets): Promise<AdminResponse> {
  if (!sameSecret(request.secret, secret)) return { status: 401, body: { message: 'admin secret required' } };
  const { keys, sweep } = targets;
  try {
    if (request.method === 'POST' && request.path === '/admin/sweep' && sweep) return { status: 200, body: await sweep() };
    if (request.method === 'GET' && request.path === '/admin/keys') return { status: 200, body: await keys.list() };
    if (request.method === 'POST' && request.path === '/admin/keys') {
      const parsed: unknown = JSON.parse(request.body || '{}');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return { status: 400, body: { message: 'expected a JSON object {"name", "region", "userId"?}' } };
      }
      const { name, region, userId } = parsed as { name?: unknown; region?: unknown; userId?: unknown };
      if ([name, region].some((v) => typeof v !== 'string') || (userId !== undefined && typeof userId !== 'string')) {
        return { status: 400, body: { message: 'name and region must be strings, and userId a string when given' } };
      }
      return { status: 201, body: await keys.issue(name as string, region as string, userId as string | undefined) };
    }
    const revoke = /^\/admin\/keys\/([^/]+)$/.exec(request.path);
    if (request.method === 'DELETE' && revoke?.[1]) {
      await keys.revoke(decodeURIComponent(revoke[1]));
      return { status: 200, body: { revoked: revoke[1] } };
    }
    return { status: 404, body: { message: 'unknown admin route' } };
  } catch (error) {
    if (error instanceof KeyError || error instanceof SyntaxError) return { status: 400, body: { message: error.message } };
    if (error instanceof URIError)
      return { status: 400, body: { message: 'the key id in the path is not valid percent-encoding' } };
    throw error;
  }
}
