/**
 * DNS-rebinding protection for the MCP endpoint (MCP transport spec: servers MUST validate
 * `Origin`). A page on another site that points its own hostname at 127.0.0.1 reaches a local
 * server with that foreign name in `Host`, and a browser calling from another origin says so in
 * `Origin`. Both are refused before any MCP work (decision 0044).
 */
export interface OriginPolicy {
  /** Host names the endpoint answers to (without port), or `any` where the gateway already enforces it. */
  readonly allowedHosts: readonly string[] | 'any';
  /** Browser origins allowed besides the endpoint's own (`scheme://host[:port]`, exactly). */
  readonly allowedOrigins: readonly string[];
}

/** Loopback names: what a local endpoint answers to unless configured otherwise. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'] as const;

/** `Host` without its port (and without the brackets of an IPv6 literal), lower case; undefined when malformed. */
export function hostName(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why the request's `Host` or `Origin` is refused, or undefined when both are acceptable. */
export function originProblem(host: string | null, origin: string | null, policy: OriginPolicy): string | undefined {
  if (policy.allowedHosts !== 'any') {
    const name = host === null ? undefined : hostName(host);
    if (name === undefined || !policy.allowedHosts.includes(name)) {
      return 'this endpoint does not answer to that Host header (DNS rebinding protection)';
    }
  }
  if (origin === null || policy.allowedOrigins.includes(origin)) return undefined;
  let sameOrigin = false;
  try {
    sameOrigin = host !== null && new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    sameOrigin = false;
  }
  return sameOrigin ? undefined : 'requests from that Origin are not allowed; add it to NAABA_ALLOWED_ORIGINS to trust it';
}
