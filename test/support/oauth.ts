import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * An MCP client's side of OAuth for tests: the SDK's own `OAuthClientProvider` contract, kept in
 * memory, whose "browser" is real HTTP against the consent page — it opens the page, reads the
 * form, and submits it with a naaba key and the CSRF cookie the page set.
 */

/** The form fields and cookie of a consent page. */
export interface ConsentForm {
  readonly status: number;
  readonly html: string;
  readonly fields: Record<string, string>;
  readonly cookie: string | undefined;
  readonly csp: string | null;
}

const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '');

/** Opens a consent page as a browser would (no redirect followed). */
export async function openConsent(url: URL | string): Promise<ConsentForm> {
  const response = await fetch(url, { redirect: 'manual' });
  const html = await response.text();
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g))
    fields[m[1] ?? ''] = unescapeHtml(m[2] ?? '');
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  return { status: response.status, html, fields, cookie, csp: response.headers.get('content-security-policy') };
}

/** Submits a consent form; resolves to the answer (a 303 to the client, or the page again). */
export async function submitConsent(
  pageUrl: URL | string,
  form: ConsentForm,
  overrides: Record<string, string | undefined> = {},
  options: { cookie?: string | undefined; origin?: string } = {},
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...form.fields, ...overrides })) if (value !== undefined) body.set(name, value);
  const target = new URL('authorize', pageUrl);
  const cookie = 'cookie' in options ? options.cookie : form.cookie;
  return fetch(target, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: options.origin ?? target.origin,
      ...(cookie ? { cookie } : {}),
    },
    body,
  });
}

/** Opens the page and allows with `key`: the URL the browser is sent to. */
export async function consentWith(url: URL | string, key: string, decision = 'allow'): Promise<URL> {
  const form = await openConsent(url);
  if (form.status !== 200) throw new Error(`consent page answered ${form.status}: ${form.html.slice(0, 300)}`);
  const answer = await submitConsent(url, form, { key, decision });
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location)
    throw new Error(`consent answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  return new URL(location);
}

/** An OAuth client as the SDK sees one: registration, PKCE verifier, tokens, all in memory. */
export class TestOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** Where the consent sent the "browser": the code and state are in it. */
  landing: URL | undefined;

  constructor(
    private readonly key: string,
    readonly name = 'Test Agent',
    readonly redirectUrl = 'http://127.0.0.1:8976/callback',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return 'state-from-the-client';
  }

  clientInformation() {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.landing = await consentWith(url, this.key);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /** The code the consent handed to the redirect URI. */
  get code(): string {
    const code = this.landing?.searchParams.get('code');
    if (!code) throw new Error(`no code in ${this.landing?.href}`);
    return code;
  }
}

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The flow by hand, for tests that bend one step of it. */
export class ManualOAuthFlow {
  constructor(readonly base: string) {}

  async register(metadata: Record<string, unknown>): Promise<Response> {
    return fetch(`${this.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
  }

  async client(redirectUri = 'http://127.0.0.1:8977/cb', name = 'Manual Client'): Promise<string> {
    const response = await this.register({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' });
    if (response.status !== 201) throw new Error(`registration answered ${response.status}`);
    return ((await response.json()) as { client_id: string }).client_id;
  }

  authorizeUrl(params: Record<string, string | undefined>): URL {
    const url = new URL(`${this.base}/oauth/authorize`);
    for (const [name, value] of Object.entries({ response_type: 'code', code_challenge_method: 'S256', ...params })) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    return url;
  }

  async token(params: Record<string, string | undefined>): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await this.post('/oauth/token', params);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** Token revocation (RFC 7009): the status only, since a success has no body. */
  async revoke(params: Record<string, string | undefined>): Promise<number> {
    const response = await this.post('/oauth/revoke', params);
    await response.body?.cancel();
    return response.status;
  }

  private post(path: string, params: Record<string, string | undefined>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) body.set(name, value);
    return fetch(`${this.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }
}
