import type { ConnectJson } from '../../lambda/page/contract.js';
import { api, query, say, TOKEN_KEY } from './api.js';
import { $, el } from './dom.js';
import { state } from './state.js';

/** How to connect a client: the server's text for each, the key put in only when asked. */

const TOKEN_PLACEHOLDER = 'nb_…';
const mcpUrl = () => new URL('mcp', location.href).href;

export async function loadConnect(): Promise<void> {
  if (state.clients.length > 0) return;
  const found = await api<ConnectJson>(`api/connect?${query({ url: mcpUrl() })}`);
  state.clients = found.clients;
  $('connect-client').replaceChildren(
    ...state.clients.map((c) => {
      const option = el('option', c.name);
      option.value = c.client;
      return option;
    }),
  );
  showConnect();
}

export function showConnect(): void {
  const chosen = state.clients.find((c) => c.client === $<HTMLSelectElement>('connect-client').value) ?? state.clients[0];
  if (!chosen) return;
  const withKey = $<HTMLInputElement>('connect-key').checked && chosen.holdsToken;
  const text = withKey ? chosen.text.replaceAll(TOKEN_PLACEHOLDER, sessionStorage.getItem(TOKEN_KEY) ?? '') : chosen.text;
  $('connect-text').textContent = text;
  $('connect-where').textContent =
    chosen.form === 'command'
      ? `${chosen.name}: run this in ${chosen.where}`
      : `${chosen.name}: put this in ${chosen.where}${chosen.holdsToken ? '' : ' (it asks for the key itself)'}`;
  $<HTMLInputElement>('connect-key').disabled = !chosen.holdsToken;
  // The server's line: a key of the signed-in user for the client, and its configuration written.
  $('connect-cli').textContent = chosen.command;
}

export async function copyConnect(): Promise<void> {
  const text = $('connect-text').textContent ?? '';
  try {
    await navigator.clipboard.writeText(text);
    say(text.includes(TOKEN_PLACEHOLDER) ? 'Copied; replace nb_… with your key.' : 'Copied.');
  } catch {
    getSelection()?.selectAllChildren($('connect-text'));
    say('Selected: press Ctrl+C (⌘C) to copy.');
  }
}
