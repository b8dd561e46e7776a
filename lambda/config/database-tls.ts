import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

/** Hosts whose traffic never leaves the machine: their URL's TLS settings are taken as they are. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * URL parameters that make pg build its own `ssl` option. pg lets a connection string's
 * parameters replace the configuration it is given, so a CA handed to pg next to a URL with
 * `sslmode` would be dropped silently: naaba reads them itself and removes them from the URL.
 */
const TLS_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'ssl', 'uselibpqcompat', 'sslnegotiation'];

/** The database connection would not be protected as naaba requires, or its TLS material is unusable. */
export class DatabaseTlsError extends Error {
  override name = 'DatabaseTlsError';
}

/** What pg is given: the URL without its TLS parameters, and the `ssl` option naaba built from them. */
export interface TlsConnection {
  readonly connectionString: string;
  readonly ssl?: ConnectionOptions;
  readonly sslnegotiation?: 'postgres' | 'direct';
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * Checks that `text` is a bundle of PEM certificates and returns it. `source` names where it came
 * from in the error; the contents never appear in a message.
 */
export function certificateBundle(text: string, source: string): string {
  if (/PRIVATE KEY-----/.test(text)) {
    throw new DatabaseTlsError(
      `${source} holds a private key: give the certificate(s) of the authority that signed the server's certificate`,
    );
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    throw new DatabaseTlsError(
      `${source} holds no PEM certificate: expected -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----`,
    );
  }
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new DatabaseTlsError(`${source}: certificate ${i + 1} of ${blocks.length} does not parse`, { cause: error });
    }
  });
  return text;
}

/** Reads a CA bundle file, with an error that says which file and why. */
export function certificateFile(path: string, source: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DatabaseTlsError(
      `${source} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return certificateBundle(text, `${source} ${path}`);
}

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch {
    // The URL itself may hold a password: never repeat it.
    throw new DatabaseTlsError(
      'the database URL does not parse: expected postgresql://user:password@host:port/database?sslmode=verify-full, with special characters in the password percent-encoded',
    );
  }
}

/** The host pg will connect to: a `host` parameter wins over the URL's host, as in pg itself. */
function hostOf(parsed: URL): string {
  if (parsed.protocol === 'socket:') return decodeURIComponent(parsed.pathname);
  const host = parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname.replace(/^\[(.*)\]$/, '$1'));
  return host.toLowerCase();
}

/** Loopback addresses and unix sockets: plaintext there never crosses a network. */
export const isLocalHost = (host: string) => host.startsWith('/') || LOOPBACK_HOSTS.has(host);

function refusal(parsed: URL, host: string, mode: string | null): string {
  const said = mode === null ? 'has no sslmode' : `has sslmode=${mode}`;
  const why = mode === 'require' ? ' (pg and libpq disagree on what require checks)' : '';
  const example = `postgresql://USER:PASSWORD@${parsed.host}${parsed.pathname}?sslmode=verify-full`;
  return `the database URL for ${host} ${said}${why}: naaba connects to a host that is not loopback only over TLS that checks the server's certificate and host name. Put sslmode=verify-full in the URL (${example}); for a cluster whose certificate is not publicly trusted, also give its CA (the secret's "ca" field, or NAABA_DATABASE_CA_FILE)`;
}

/**
 * Start-up check and translation of a database URL's TLS settings. A host that is not loopback
 * must say `sslmode=verify-full`; anything weaker is refused before any connection is tried.
 * The verifying modes (`verify-full`, and `verify-ca` on loopback) are built here so that `ca`
 * reaches pg: the server's chain is checked against `ca`, else the URL's `sslrootcert` file,
 * else the system roots. Loopback URLs in any other mode reach pg unchanged.
 */
export function tlsConnection(url: string, ca?: string): TlsConnection {
  // libpq's "socket-folder database" form: no network, nothing to protect.
  if (url.startsWith('/')) return { connectionString: url };
  const parsed = parse(url);
  const host = hostOf(parsed);
  const mode = parsed.searchParams.get('sslmode');
  if (host === '') throw new DatabaseTlsError('the database URL names no host (pg would fall back to PGHOST): name it');
  const local = isLocalHost(host);
  if (!local && mode !== 'verify-full') throw new DatabaseTlsError(refusal(parsed, host, mode));
  if (mode !== 'verify-full' && mode !== 'verify-ca') {
    if (ca !== undefined) {
      throw new DatabaseTlsError(
        `a database CA is given, but the URL for ${host} ${mode === null ? 'has no sslmode' : `has sslmode=${mode}`}, which would not use it: put sslmode=verify-full in the URL`,
      );
    }
    return { connectionString: url };
  }
  return verified(parsed, mode, ca === undefined ? undefined : certificateBundle(ca, 'the database CA'));
}

function verified(parsed: URL, mode: 'verify-full' | 'verify-ca', ca: string | undefined): TlsConnection {
  const params = parsed.searchParams;
  const file = (name: string) => {
    const path = params.get(name);
    if (!path) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new DatabaseTlsError(`the database URL's ${name} ${path} cannot be read`, { cause: error });
    }
  };
  const rootcert = params.get('sslrootcert');
  if (ca !== undefined && rootcert) {
    throw new DatabaseTlsError("the database CA is given twice, as a setting and as the URL's sslrootcert: keep one");
  }
  const ssl: ConnectionOptions = {};
  // libpq's sslrootcert=system means the system roots, which is what no `ca` gives.
  const roots = ca ?? (rootcert === 'system' ? undefined : file('sslrootcert'));
  if (roots !== undefined) ssl.ca = rootcert ? certificateBundle(roots, `the database URL's sslrootcert ${rootcert}`) : roots;
  const cert = file('sslcert');
  const key = file('sslkey');
  if (cert !== undefined) ssl.cert = cert;
  if (key !== undefined) ssl.key = key;
  // verify-ca checks the chain only; reachable on loopback alone.
  if (mode === 'verify-ca') ssl.checkServerIdentity = () => undefined;
  const negotiation = params.get('sslnegotiation') ?? undefined;
  if (negotiation !== undefined && negotiation !== 'postgres' && negotiation !== 'direct') {
    throw new DatabaseTlsError(`the database URL's sslnegotiation=${negotiation}: expected postgres or direct`);
  }
  for (const name of TLS_PARAMETERS) params.delete(name);
  // Kept beside the URL, not in it: in the URL, sslnegotiation=direct would make pg replace `ssl` with true.
  return {
    connectionString: parsed.toString(),
    ssl,
    ...(negotiation ? { sslnegotiation: negotiation as 'postgres' | 'direct' } : {}),
  };
}
