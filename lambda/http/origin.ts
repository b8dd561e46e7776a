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

/**
 * A `Host` header as RFC 9110 §7.2 allows it: a host name or IP literal and an optional port,
 * nothing else — no user info (`evil@127.0.0.1`), path, query or fragment, which a URL parser
 * would quietly accept or drop. The name without brackets, lower case; undefined when malformed.
 */
export function parseHost(host: string): { readonly name: string; readonly port: number | undefined } | undefined {
  const match =
    /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?))(?::(\d{1,5}))?$/.exec(
      host,
    );
  if (!match) return undefined;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && port > 65_535) return undefined;
  const literal = match[1];
  if (literal !== undefined && !URL.canParse(`http://[${literal}]/`)) return undefined;
  return { name: (literal ?? match[2] ?? '').toLowerCase(), port };
}

/** `Host` without its port (and without the brackets of an IPv6 literal), lower case; undefined when malformed. */
export function hostName(host: string): string | undefined {
  return parseHost(host)?.name;
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
    sameOrigin = host !== null && parseHost(host) !== undefined && new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    sameOrigin = false;
  }
  return sameOrigin ? undefined : 'requests from that Origin are not allowed; add it to NAABA_ALLOWED_ORIGINS to trust it';
}
