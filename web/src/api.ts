import type { ErrorJson } from '../../lambda/page/contract.js';
import { $ } from './dom.js';
import { page } from './state.js';

/**
 * The page's client of its data API: same-origin fetches with the key as a bearer token, never a
 * cookie. The key lives in sessionStorage only. Each answer is typed by the route's own type in
 * lambda/page/contract.ts.
 */

export const TOKEN_KEY = 'naaba.key';
export const UNKNOWN_KEY =
  'This key is not known here. Check that it was copied whole (a key starts with nb_), and that it was not revoked.';
export const REVOKED = 'Signed out: this key was revoked or is no longer valid. Sign in with another key.';

export type ApiFailure = 'unauthorized' | 'forbidden' | 'network' | 'failed';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly reason: ApiFailure,
    readonly status?: number,
  ) {
    super(message);
  }
}

let inFlight = 0;

function busy(change: number): void {
  inFlight += change;
  $('busy').textContent = inFlight > 0 ? 'Loading…' : '';
  $('main').setAttribute('aria-busy', String(inFlight > 0));
}

/** An error in the alert style; it stays until the next call that works. */
export function showError(message: string | null | undefined): void {
  const notice = $('notice');
  notice.textContent = message ?? '';
  notice.hidden = !message;
}

/** A neutral word on what just happened (never the alert style). */
export function say(message: string | null | undefined): void {
  const status = $('status');
  status.textContent = message ?? '';
  status.hidden = !message;
}

function stale(yes: boolean): void {
  $('stale').hidden = !yes;
}

export interface CallOptions {
  readonly method?: 'GET' | 'PUT' | 'POST' | 'DELETE';
  readonly body?: string;
}

/** One call; `T` is the route's answer in lambda/page/contract.ts. */
export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const answer = await call<T>(path, options, false);
  return answer as T;
}

/** One call whose 404 means "gone": null then. */
export async function apiOrGone<T>(path: string, options: CallOptions = {}): Promise<T | null> {
  return call<T>(path, options, true);
}

async function call<T>(path: string, { method = 'GET', body }: CallOptions, missing: boolean): Promise<T | null> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new ApiError('not signed in', 'unauthorized');
  busy(1);
  try {
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      stale(true);
      throw new ApiError(
        `Could not reach naaba at ${location.host}: the server may be stopped or the network down. Nothing was changed.`,
        'network',
      );
    }
    const answer: unknown = await response.json().catch(() => ({}));
    const said = answer as ErrorJson;
    if (response.status === 401) throw new ApiError(UNKNOWN_KEY, 'unauthorized');
    if (response.status === 403)
      throw new ApiError(said.message ?? said.error ?? 'this key is not for this endpoint', 'forbidden');
    if (missing && response.status === 404) return null;
    if (!response.ok)
      throw new ApiError(said.error ?? said.message ?? `the server answered ${response.status}`, 'failed', response.status);
    stale(false);
    showError('');
    return answer as T;
  } finally {
    busy(-1);
  }
}

/** Runs an action, showing its failure as text; a key that stopped working signs out. */
export async function guarded(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ApiError && error.reason === 'unauthorized') return page.signOut(REVOKED, true);
    showError(error instanceof Error ? error.message : String(error));
  }
}

/** A confirmation in a modal dialog: Escape or Cancel says no. */
export function confirmed(message: string, action: string): Promise<boolean> {
  const dialog = $<HTMLDialogElement>('confirm');
  $('confirm-text').textContent = message;
  $('confirm-ok').textContent = action;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}

export const query = (params: Record<string, string>): string => new URLSearchParams(params).toString();
