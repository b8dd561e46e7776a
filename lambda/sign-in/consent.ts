import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConsentError, type OAuthService } from '../auth/oauth.js';
import { securityEvent } from '../auth/security-events.js';
import { type OriginPolicy, originProblem } from '../http/origin.js';
import { consentCsp, consentPage, refusalPage } from './consent-page.js';

/**
 * The consent page's two requests (decision 0054): GET shows the form with a one-time value in a
 * hidden field and in a cookie (double submit); POST checks both, the origin and the key, and
 * sends the browser on. One form makes at most one code (decision 0067): its value's hash is
 * stored with the code it made.
 */

/** What the consent page needs of the request's surroundings (the routes' deps are a superset). */
export interface ConsentDeps {
  readonly oauth: () => Promise<OAuthService>;
  /** The public base URL the request came in on: the issuer. */
  readonly base: string;
  readonly origins: OriginPolicy;
  /** The client address the request came from, as limits count it (`clientAddress`). */
  readonly address: string;
}

const MAX_FORM = 16 * 1024;
const CSRF_COOKIE = 'naaba_oauth_csrf';
const NO_STORE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

const html = (status: number, body: string, csp: string, headers: Record<string, string> = {}) =>
  new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      // Not no-referrer: with it Chromium sends `Origin: null` on the form's POST, which the origin check refuses.
      'referrer-policy': 'same-origin',
      ...NO_STORE,
      ...headers,
    },
  });

const refused = (status: number, message: string) => html(status, refusalPage(message), consentCsp());

export const redirect = (to: string) => new Response(null, { status: 303, headers: { location: to, ...NO_STORE } });

function cookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

const sameSecret = (a: string | undefined, b: string | null) =>
  a !== undefined && b !== null && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The double-submit CSRF cookie: this path only, never sent cross-site, Secure on https. */
function csrfCookie(base: string, value: string): string {
  const url = new URL(base);
  const secure = url.protocol === 'https:' ? '; Secure' : '';
  return `${CSRF_COOKIE}=${value}; Path=${url.pathname.replace(/\/$/, '')}/oauth/authorize; HttpOnly; SameSite=Strict; Max-Age=900${secure}`;
}

/** A body read only up to the form limit; undefined past it. */
export async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const text = await request.text();
  return text.length > MAX_FORM ? undefined : new URLSearchParams(text);
}

function formPage(deps: ConsentDeps, checked: Parameters<typeof consentPage>[0], status = 200, problem?: string): Response {
  const csrf = randomBytes(24).toString('base64url');
  return html(status, consentPage(checked, csrf, problem), consentCsp(checked.redirectUri), {
    'set-cookie': csrfCookie(deps.base, csrf),
  });
}

export async function showConsent(request: Request, deps: ConsentDeps): Promise<Response> {
  const checked = await (await deps.oauth()).check(new URL(request.url).searchParams);
  if ('kind' in checked) return checked.kind === 'page' ? refused(checked.status, checked.message) : redirect(checked.to);
  return formPage(deps, checked);
}

export async function answerConsent(request: Request, deps: ConsentDeps): Promise<Response> {
  const event = (reason: string, clientId?: string) =>
    securityEvent('consent_refused', { reason, route: 'authorize', address: deps.address, clientId });
  const problem = originProblem(request.headers.get('host'), request.headers.get('origin'), deps.origins);
  if (problem) {
    event('origin');
    return refused(403, problem);
  }
  const form = await readForm(request);
  if (!form) return refused(403, 'The form is too large.');
  const csrf = form.get('csrf');
  if (!sameSecret(cookie(request, CSRF_COOKIE), csrf)) {
    // No client id here: unchecked, it is text the caller wrote.
    event('csrf');
    return refused(403, 'This form did not come from this page, or it expired. Start the sign-in again.');
  }
  const oauth = await deps.oauth();
  const checked = await oauth.check(form);
  if ('kind' in checked) return checked.kind === 'page' ? refused(checked.status, checked.message) : redirect(checked.to);
  if (form.get('decision') !== 'allow') return redirect(oauth.denied(checked));
  try {
    const formSha256 = createHash('sha256')
      .update(csrf ?? '')
      .digest('hex');
    return redirect(await oauth.consent(checked, form.get('key') ?? '', formSha256));
  } catch (error) {
    if (!(error instanceof ConsentError)) throw error;
    event(error.reason, checked.client.clientId);
    if (error.reason === 'form_reused') return refused(error.status, error.message);
    return formPage(deps, checked, error.status, error.message);
  }
}
