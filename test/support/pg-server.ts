import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environment } from '../../lambda/config/env.js';

/**
 * A throwaway PostgreSQL cluster on loopback, for tests that need a real multi-connection server:
 * `initdb` in a temporary folder, `pg_ctl start` on a free port, one database with pgvector,
 * removed again by `stop()`. Needs Debian's `postgresql` and a pgvector build installed into it
 * (`../shared/vendor/README.md`, `.ci/run`).
 */
export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:PORT/naaba`, trust authentication, loopback only. */
  readonly url: string;
  readonly port: number;
  /** What the server says it is (`PostgreSQL 15.x …`). */
  readonly version: string;
  /** The cluster's data directory (removed by `stop`). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  readonly maxConnections?: number;
  /**
   * Serve TLS with this certificate and key (PEM files, copied into the cluster: PostgreSQL wants
   * the key owned by the server's user and unreadable to others). Plaintext stays accepted too.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Loopback addresses to listen on and trust besides 127.0.0.1 (`127.0.0.2` can stand in for a remote host). */
  readonly alsoListenOn?: readonly string[];
  /** Roles that must give their password (scram-sha-256) over TCP; every other role is trusted. */
  readonly passwordRoles?: readonly string[];
}

/** Why no server could be started, in words a person can act on. */
export class NoPostgresServer extends Error {
  override readonly name = 'NoPostgresServer';
}

/** The folder of `initdb`/`pg_ctl`: NAABA_PG_BINDIR, else `pg_config --bindir`, else the newest Debian one. */
function binDir(): string {
  const given = environment().NAABA_PG_BINDIR;
  if (given) return given;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // Debian's pg_config (without postgresql-server-dev) may be absent; fall through.
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) {
    throw new NoPostgresServer(
      'no PostgreSQL server binaries (initdb) found: apt-get install postgresql, or set NAABA_PG_BINDIR',
    );
  }
  return join(debian, newest, 'bin');
}

/** pgvector must be installed into the same server: its control file sits in the share folder. */
function requirePgvector(bin: string): void {
  let share: string | undefined;
  try {
    share = execFileSync(join(bin, 'pg_config'), ['--sharedir'], { encoding: 'utf8' }).trim();
  } catch {
    const version = bin.match(/postgresql\/(\d+)\//)?.[1];
    if (version) share = `/usr/share/postgresql/${version}`;
  }
  if (!share || !existsSync(join(share, 'extension', 'vector.control'))) {
    throw new NoPostgresServer(
      `pgvector is not installed into the PostgreSQL at ${bin}: build it from ../shared/vendor/pgvector-*.tar.gz (see its README)`,
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` system user. */
function runner(folder: string): { run: (command: string, args: readonly string[]) => void; own: (path: string) => void } {
  const asRoot = process.getuid?.() === 0;
  let prefix: string[] = [];
  let own = (_path: string): void => undefined;
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    if (!Number.isInteger(uid) || uid <= 0) {
      throw new NoPostgresServer('running as root and there is no postgres system user to own the cluster');
    }
    chownSync(folder, uid, gid);
    prefix = ['runuser', '-u', 'postgres', '--'];
    own = (path) => chownSync(path, uid, gid);
  }
  const run = (command: string, args: readonly string[]) => {
    const [program = command, ...rest] = [...prefix, command, ...args];
    const result = spawnSync(program, rest, { encoding: 'utf8', cwd: folder });
    if (result.status !== 0) {
      const said = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-5).join('\n');
      throw new NoPostgresServer(
        `${command.split('/').pop()} failed (${result.error?.message ?? `exit ${result.status}`}): ${said}`,
      );
    }
  };
  return { run, own };
}

/** Puts the certificate and key into the data folder and returns the settings that serve them. */
function serveTls(data: string, tls: NonNullable<PostgresOptions['tls']>, own: (path: string) => void): string[] {
  for (const [from, to] of [
    [tls.certFile, 'server.crt'],
    [tls.keyFile, 'server.key'],
  ] as const) {
    const path = join(data, to);
    copyFileSync(from, path);
    own(path);
    chmodSync(path, 0o600);
  }
  return ['-c ssl=on', '-c ssl_cert_file=server.crt', '-c ssl_key_file=server.key'];
}

/**
 * Starts a throwaway cluster; throws NoPostgresServer saying why when it cannot. Durability is
 * off (`fsync=off`): the folder is deleted afterwards, and the tests measure contention, not disks.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = binDir();
  requirePgvector(bin);
  const folder = mkdtempSync(join(tmpdir(), 'naaba-pg-'));
  const data = join(folder, 'data');
  const { run, own } = runner(folder);
  const port = await freePort();
  const others = options.alsoListenOn ?? [];
  const settings = [
    `-p ${port}`,
    `-k ${folder}`,
    `-c listen_addresses=${['127.0.0.1', ...others].join(',')}`,
    `-c max_connections=${options.maxConnections ?? 100}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ];
  let started = false;
  const stop = async () => {
    if (started) {
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone: nothing to stop.
      }
      started = false;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    // initdb trusts 127.0.0.1 and ::1; the other addresses listened on are trusted alike.
    if (others.length > 0) appendFileSync(join(data, 'pg_hba.conf'), others.map((a) => `host all all ${a}/32 trust\n`).join(''));
    // The first matching line wins: password lines go before initdb's trust lines.
    const hba = join(data, 'pg_hba.conf');
    const passwords = (options.passwordRoles ?? []).map((role) => `host all ${role} 127.0.0.1/32 scram-sha-256\n`).join('');
    if (passwords) writeFileSync(hba, `${passwords}${readFileSync(hba, 'utf8')}`);
    if (options.tls) settings.push(...serveTls(data, options.tls, own));
    run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(folder, 'server.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
    started = true;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    let version: string;
    try {
      await admin.query('CREATE DATABASE naaba');
      version = (await admin.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? 'PostgreSQL';
    } finally {
      await admin.end();
    }
    return {
      url: `postgresql://postgres@127.0.0.1:${port}/naaba`,
      port,
      version: version.split(' on ')[0] ?? version,
      dataDir: data,
      stop,
    };
  } catch (error) {
    await stop();
    throw error instanceof NoPostgresServer
      ? error
      : new NoPostgresServer(`the server did not start: ${(error as Error).message}`);
  }
}

/**
 * For a test file that needs a real server: one started, or undefined after registering what says
 * why there is none — a failing test when NAABA_REQUIRE_POSTGRES=1 (CI, `npm run test:pg`), a
 * todo and one printed line otherwise. Never a silent pass.
 */
export async function postgresForTests(
  what: string,
  options?: Parameters<typeof startPostgres>[0],
): Promise<PostgresServer | undefined> {
  try {
    return await startPostgres(options);
  } catch (error) {
    const reason = (error as Error).message;
    if (environment().NAABA_REQUIRE_POSTGRES === '1') {
      console.log(`${what}: FAILED, no PostgreSQL server could be started: ${reason}`);
      test(`${what} (a PostgreSQL server is required: NAABA_REQUIRE_POSTGRES=1)`, () => {
        throw new Error(`no PostgreSQL server could be started: ${reason}`);
      });
    } else {
      console.log(`${what}: NOT RUN, no PostgreSQL server could be started: ${reason} (npm run test:pg requires one)`);
      test.todo(`${what}: not run, ${reason}`);
    }
    return undefined;
  }
}
