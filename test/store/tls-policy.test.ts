import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { DatabaseTlsError, certificateBundle, tlsConnection } from '../../lambda/config/database-tls.js';
import { describeConfig } from '../../lambda/config/env.js';
import { ConfigError } from '../../lambda/config/errors.js';
import { readDatabaseSecret } from '../../lambda/config/secrets.js';
import { type SecretsStandIn, type TestAuthority, makeTestAuthority, startSecretsStandIn } from './tls-support.js';

/**
 * What naaba makes of a database URL's TLS settings, before any connection: refusals for hosts
 * that are not loopback, the `ssl` option handed to pg, the CA from a file, the secret or the URL.
 */
let authority: TestAuthority;
beforeAll(() => {
  authority = makeTestAuthority();
});
afterAll(() => authority?.remove());

const REMOTE = 'postgresql://naaba:s3cret-pw@db.example.internal:26257/naaba';

describe('a host that is not loopback needs sslmode=verify-full', () => {
  test.each([
    ['no sslmode', REMOTE],
    ['sslmode=disable', `${REMOTE}?sslmode=disable`],
    ['sslmode=allow', `${REMOTE}?sslmode=allow`],
    ['sslmode=prefer', `${REMOTE}?sslmode=prefer`],
    ['sslmode=require', `${REMOTE}?sslmode=require`],
    ['sslmode=verify-ca', `${REMOTE}?sslmode=verify-ca`],
    ['pg-only ssl=no-verify', `${REMOTE}?ssl=no-verify`],
    [
      'a host parameter that overrides a loopback host',
      'postgresql://u@127.0.0.1/naaba?host=db.example.internal&sslmode=disable',
    ],
    ['127.0.0.2: loopback on Linux, but not one of the three names', 'postgresql://u@127.0.0.2:5432/naaba?sslmode=require'],
  ])('%s: refused, saying what to put in the URL, never the password', (_, url) => {
    let thrown: unknown;
    try {
      tlsConnection(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DatabaseTlsError);
    const message = (thrown as Error).message;
    expect(message).toMatch(/Put sslmode=verify-full in the URL \(postgresql:\/\/USER:PASSWORD@.*\?sslmode=verify-full\)/);
    expect(message).toContain('NAABA_DATABASE_CA_FILE');
    expect(message).not.toContain('s3cret-pw');
  });

  test('PgSqlClient.connect refuses sslmode=disable for db.example.internal before trying to connect', async () => {
    // The name does not resolve: any connection attempt would fail with ENOTFOUND instead.
    const opening = PgSqlClient.connect({ url: `${REMOTE}?sslmode=disable`, maxConnections: 1, statementTimeoutMs: 1_000 });
    await expect(opening).rejects.toThrow(DatabaseTlsError);
    await expect(opening).rejects.toThrow(/db\.example\.internal has sslmode=disable: .*Put sslmode=verify-full/);
  });

  test('verify-full is built by naaba: TLS parameters leave the URL, the CA and negotiation go beside it', () => {
    const url = `${REMOTE}?sslmode=verify-full&sslnegotiation=direct&uselibpqcompat=true&options=-c%20x%3D1`;
    const tls = tlsConnection(url, authority.ca);
    const left = new URL(tls.connectionString);
    expect([...left.searchParams.keys()]).toEqual(['options']);
    expect(left.password).toBe('s3cret-pw');
    expect(tls.ssl?.ca).toBe(authority.ca);
    expect(tls.ssl?.checkServerIdentity).toBeUndefined();
    expect(tls.sslnegotiation).toBe('direct');
  });

  test('without a CA, verify-full uses the system roots (CockroachDB Cloud), also for sslrootcert=system', () => {
    for (const url of [`${REMOTE}?sslmode=verify-full`, `${REMOTE}?sslmode=verify-full&sslrootcert=system`]) {
      expect(tlsConnection(url).ssl).toEqual({});
    }
  });

  test("the URL's sslrootcert file is read and checked; given twice, the CA is refused", () => {
    const url = `${REMOTE}?sslmode=verify-full&sslrootcert=${encodeURIComponent(authority.caFile)}`;
    expect(tlsConnection(url).ssl?.ca).toBe(authority.ca);
    expect(() => tlsConnection(url, authority.ca)).toThrow(/given twice/);
    expect(() => tlsConnection(`${REMOTE}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem`)).toThrow(
      /sslrootcert \/nonexistent\/ca\.pem cannot be read/,
    );
  });
});

describe('loopback hosts keep what their URL says', () => {
  test.each([
    'postgresql://postgres@127.0.0.1:5432/naaba',
    'postgresql://postgres@localhost:5432/naaba?sslmode=disable',
    'postgresql://postgres@[::1]:5432/naaba?sslmode=require',
    'postgresql://postgres@%2Fvar%2Frun%2Fpostgresql/naaba',
    'postgresql://postgres@ignored/naaba?host=/var/run/postgresql',
    '/var/run/postgresql naaba',
  ])('%s reaches pg unchanged', (url) => {
    expect(tlsConnection(url)).toEqual({ connectionString: url });
  });

  test('verify-ca on loopback checks the chain but not the host name', () => {
    const tls = tlsConnection('postgresql://postgres@127.0.0.1:5432/naaba?sslmode=verify-ca', authority.ca);
    expect(tls.ssl?.checkServerIdentity?.('anything', {} as never)).toBeUndefined();
  });

  test('a CA with a mode that would not use it is refused rather than ignored', () => {
    expect(() => tlsConnection('postgresql://postgres@127.0.0.1:5432/naaba?sslmode=disable', authority.ca)).toThrow(
      /a database CA is given, but the URL for 127\.0\.0\.1 has sslmode=disable/,
    );
  });
});

describe('a CA bundle must be PEM certificates', () => {
  test.each([
    ['empty', '', /holds no PEM certificate/],
    ['DER-like junk', 'MIIB0zCCAXmgAwIBAgIU', /holds no PEM certificate/],
    ['a private key', '-----BEGIN PRIVATE KEY-----\nMIGHAgEA\n-----END PRIVATE KEY-----\n', /holds a private key/],
    [
      'a block that does not parse',
      '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n',
      /certificate 1 of 1 does not parse/,
    ],
  ])('%s: refused, without repeating the contents', (_, text, expected) => {
    expect(() => certificateBundle(text, 'the test CA')).toThrow(expected);
    try {
      certificateBundle(text, 'the test CA');
    } catch (error) {
      if (text !== '') expect((error as Error).message).not.toContain(text.slice(0, 20));
    }
  });

  test('a bundle of two certificates is accepted as is', () => {
    const bundle = `${authority.ca}${authority.otherCa}`;
    expect(certificateBundle(bundle, 'the test CA')).toBe(bundle);
  });
});

describe('NAABA_DATABASE_CA_FILE and the URL, as `naaba check` sees them', () => {
  test('a valid CA file goes with the URL; the report names the file, never the contents', () => {
    const { config, report, problems } = describeConfig({
      NAABA_DATABASE_URL: `${REMOTE}?sslmode=verify-full`,
      NAABA_DATABASE_CA_FILE: authority.caFile,
    });
    expect(problems).toEqual([]);
    expect(config.database).toMatchObject({ kind: 'url', ca: authority.ca });
    expect(report.find((r) => r.name === 'NAABA_DATABASE_CA_FILE')?.value).toBe(authority.caFile);
    expect(JSON.stringify(report)).not.toContain('BEGIN CERTIFICATE');
  });

  const notPemFile = () => {
    const path = join(authority.folder, 'not-pem.txt');
    writeFileSync(path, 'hello\n');
    return path;
  };
  const url = `${REMOTE}?sslmode=verify-full`;
  test.each([
    [
      'a missing file',
      () => ({ NAABA_DATABASE_URL: url, NAABA_DATABASE_CA_FILE: '/nonexistent/ca.pem' }),
      /NAABA_DATABASE_CA_FILE \/nonexistent\/ca\.pem cannot be read: ENOENT/,
    ],
    [
      'a file that is not PEM',
      () => ({ NAABA_DATABASE_URL: url, NAABA_DATABASE_CA_FILE: notPemFile() }),
      /NAABA_DATABASE_CA_FILE .*not-pem\.txt holds no PEM certificate/,
    ],
    ['plaintext to a remote host', () => ({ NAABA_DATABASE_URL: `${REMOTE}?sslmode=disable` }), /Put sslmode=verify-full/],
    [
      'a CA file with a secret',
      () => ({ NAABA_DATABASE_SECRET_ID: 'naaba/db', NAABA_DATABASE_CA_FILE: authority.caFile }),
      /put the CA in the secret's "ca" field/,
    ],
  ])('%s is a configuration problem', (_, env, expected) => {
    const problems = describeConfig(env()).problems.join('\n');
    expect(problems).toMatch(expected);
    expect(problems).not.toContain('s3cret-pw');
  });
});

describe('the database secret: raw URL, or JSON with url and an optional ca', () => {
  let secrets: SecretsStandIn;
  beforeAll(async () => {
    secrets = await startSecretsStandIn({
      raw: `${REMOTE}?sslmode=verify-full`,
      json: JSON.stringify({ url: `${REMOTE}?sslmode=verify-full`, username: 'ignored' }),
      'with-ca': JSON.stringify({ url: `${REMOTE}?sslmode=verify-full`, ca: authority.ca }),
      'bad-ca': JSON.stringify({ url: `${REMOTE}?sslmode=verify-full`, ca: 'MIIB0zCCAXmgAwIBAgIU' }),
      'ca-not-text': JSON.stringify({ url: `${REMOTE}?sslmode=verify-full`, ca: ['x'] }),
    });
  });
  afterAll(async () => secrets?.close());

  test.each([
    ['raw', undefined],
    ['json', undefined],
    ['with-ca', 'ca'],
  ])('%s', async (id, ca) => {
    const secret = await readDatabaseSecret(id, secrets.client);
    expect(secret.url).toBe(`${REMOTE}?sslmode=verify-full`);
    expect(secret.ca).toBe(ca === undefined ? undefined : authority.ca);
  });

  test.each([
    ['bad-ca', /secret bad-ca's "ca" field holds no PEM certificate/],
    ['ca-not-text', /secret ca-not-text: "ca" must be a string of PEM certificates/],
  ])('%s: a configuration error naming the secret, not its contents', async (id, expected) => {
    const reading = readDatabaseSecret(id, secrets.client);
    await expect(reading).rejects.toThrow(ConfigError);
    await expect(reading).rejects.toThrow(expected);
    await expect(reading).rejects.not.toThrow(/s3cret-pw|MIIB0z/);
  });
});
