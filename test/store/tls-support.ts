import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** A throwaway certificate authority and a server certificate it signed, as PEM files in a temporary folder. */
export interface TestAuthority {
  readonly folder: string;
  /** The authority's certificate (what a client is given as its CA). */
  readonly caFile: string;
  readonly ca: string;
  /** A second, unrelated authority's certificate. */
  readonly otherCa: string;
  readonly certFile: string;
  readonly keyFile: string;
  remove(): void;
}

/** Runs openssl in `folder`; `args` is split on spaces (no argument here holds one). */
const openssl = (folder: string, args: string) =>
  execFileSync('openssl', args.split(' '), { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });

const EC_KEY = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';

function authority(folder: string, name: string): void {
  openssl(
    folder,
    `req -x509 ${EC_KEY} -keyout ${name}.key -out ${name}.crt -days 2 -subj /CN=naaba-test-${name} -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign`,
  );
}

/**
 * Generates, with openssl, an authority and a server certificate for `subjectAltName` (by default
 * DNS localhost and IP 127.0.0.1 and 127.0.0.2), plus an unrelated second authority.
 */
export function makeTestAuthority(subjectAltName = 'DNS:localhost,IP:127.0.0.1,IP:127.0.0.2'): TestAuthority {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-ca-'));
  authority(folder, 'ca');
  authority(folder, 'other');
  writeFileSync(
    join(folder, 'server.ext'),
    `subjectAltName=${subjectAltName}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(folder, `req ${EC_KEY} -keyout server.key -out server.csr -subj /CN=naaba-test-server`);
  openssl(
    folder,
    'x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile server.ext',
  );
  const read = (file: string) => readFileSync(join(folder, file), 'utf8');
  return {
    folder,
    caFile: join(folder, 'ca.crt'),
    ca: read('ca.crt'),
    otherCa: read('other.crt'),
    certFile: join(folder, 'server.crt'),
    keyFile: join(folder, 'server.key'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

/** A Secrets Manager stand-in on loopback: answers GetSecretValue from a map, as the AWS JSON protocol does. */
export interface SecretsStandIn {
  readonly client: SecretsManagerClient;
  /** Where it listens, for an SDK client built elsewhere (`AWS_ENDPOINT_URL_SECRETS_MANAGER`). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startSecretsStandIn(secrets: Readonly<Record<string, string>>): Promise<SecretsStandIn> {
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      const value = SecretId === undefined ? undefined : secrets[SecretId];
      const found = target === 'secretsmanager.GetSecretValue' && value !== undefined;
      response.writeHead(found ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify(
          found
            ? { ARN: `arn:aws:secretsmanager:eu-central-1:123456789012:secret:${SecretId}`, Name: SecretId, SecretString: value }
            : { __type: 'ResourceNotFoundException', message: 'Secrets Manager cannot find the specified secret.' },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const client = new SecretsManagerClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'eu-central-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    maxAttempts: 1,
  });
  return {
    client,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
