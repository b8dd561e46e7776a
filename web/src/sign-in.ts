import { showError, say, TOKEN_KEY } from './api.js';
import { $ } from './dom.js';
import { forgetPicture } from './over-time.js';
import { resetImport } from './import.js';
import { loadOverview } from './overview.js';
import { page, resetState } from './state.js';

/** Sign-in and sign-out: a key works before the page opens, and signing out leaves nothing of it on screen. */

/** Everything signed-in on screen, emptied on sign-out. */
const FILLED = [
  'kinds',
  'engine',
  'memories',
  'chart',
  'legend',
  'next',
  'next-pins',
  'time',
  'time-legend',
  'compare-pair',
  'compare-ways',
  'connect-text',
  'totals',
];

export function signOut(message: string, asError = false): void {
  sessionStorage.removeItem(TOKEN_KEY);
  resetState();
  forgetPicture();
  $('selection').hidden = true;
  for (const id of FILLED) $(id).replaceChildren();
  $<HTMLTableElement>('journal').tBodies[0]?.replaceChildren();
  resetImport();
  $('app').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  say('');
  showError('');
  if (asError) showError(message);
  else say(message);
  $('token').focus();
}

/** Signs in only when the key works: an unknown key stays on the form with a message of its own. */
export async function signIn(token: string): Promise<void> {
  sessionStorage.setItem(TOKEN_KEY, token);
  say('');
  try {
    await loadOverview();
  } catch (error) {
    sessionStorage.removeItem(TOKEN_KEY);
    showError(error instanceof Error ? error.message : String(error));
    $('token').focus();
    return;
  }
  await enter();
}

export async function enter(): Promise<void> {
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('sign-out').hidden = false;
  await page.show('overview');
  $('h-overview').focus();
}
