import type { AuthorizationRequest } from '../auth/oauth.js';
import { agentName } from '../auth/oauth-clients.js';

/**
 * The consent page, rendered on the server: no script at all, every value escaped, styled by the
 * memory page's stylesheet. Its Content-Security-Policy lets the form go to this origin only, and
 * the redirect that follows to the one origin the client registered (Chromium applies
 * `form-action` to a form's redirects too).
 */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function consentCsp(redirectUri?: string): string {
  const target = redirectUri && URL.canParse(redirectUri) ? ` ${new URL(redirectUri).origin}` : '';
  return (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; " +
    `form-action 'self'${target}; frame-ancestors 'none'; base-uri 'none'`
  );
}

function shell(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="../app.css" />
  </head>
  <body>
    <header class="bar"><h1>naaba memory</h1></header>
${body}
  </body>
</html>
`;
}

/** The form's hidden fields: the request as checked, sent back so the POST is checked again. */
function hidden(request: AuthorizationRequest, csrf: string): string {
  const fields: [string, string | undefined][] = [
    ['client_id', request.client.clientId],
    ['redirect_uri', request.redirectUri],
    ['response_type', 'code'],
    ['code_challenge', request.codeChallenge],
    ['code_challenge_method', 'S256'],
    ['resource', request.resource],
    ['state', request.state],
    ['csrf', csrf],
  ];
  return fields
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `      <input type="hidden" name="${name}" value="${escapeHtml(value ?? '')}" />`)
    .join('\n');
}

/** The page asking for a key: which client asks, where it will send the person, and what it gets. */
export function consentPage(request: AuthorizationRequest, csrf: string, problem?: string): string {
  const target = new URL(request.redirectUri);
  const notice = problem ? `    <p id="notice" class="notice" role="alert">${escapeHtml(problem)}</p>\n` : '';
  return shell(
    `Allow ${request.client.clientName} to use your naaba memory?`,
    `${notice}    <form id="consent" class="card" method="post" action="authorize">
      <h2>Allow <span id="client-name">${escapeHtml(request.client.clientName)}</span> to use your memory?</h2>
      <p>It will be able to remember, recall and forget in your naaba memory as agent
        <strong id="agent-name">${escapeHtml(agentName(request.client.clientName))}</strong>, until you revoke it
        (<code>naaba list-keys</code>, <code>naaba revoke-key</code>).</p>
      <p class="hint">After you answer you go to <strong id="redirect-origin">${escapeHtml(target.origin)}</strong>
        (<span id="redirect-uri">${escapeHtml(request.redirectUri)}</span>).</p>
${hidden(request, csrf)}
      <label for="key">Your naaba key</label>
      <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" />
      <p class="hint">The key proves who you are; it is checked here and never given to the client, which gets its own credential.</p>
      <div class="row">
        <button type="submit" name="decision" value="allow" id="allow">Allow</button>
        <button type="submit" name="decision" value="deny" id="deny" class="link">Deny</button>
      </div>
    </form>`,
  );
}

/** A sign-in link that cannot be trusted to redirect anywhere: said on the page, never redirected. */
export function refusalPage(message: string): string {
  return shell(
    'naaba sign-in refused',
    `    <section class="card"><h2>Sign-in refused</h2>
      <p id="notice" class="notice" role="alert">${escapeHtml(message)}</p>
      <p class="hint">Nothing was issued. Start the sign-in again from your MCP client.</p>
    </section>`,
  );
}
