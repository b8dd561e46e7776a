import { type Formula, VALUES } from './formula.js';

/**
 * Pins are capped per user (default 50): past the cap a pin is refused with a clear error, never
 * grown silently. A memory already pinned costs nothing to pin again; unpinning is always allowed.
 * The count is of every memory the user has pinned (a pinned memory never expires).
 */
export const pinAllowedIn = <N, B>(f: Formula<N, B>, request: { pin: B; alreadyPinned: B }, pinnedNow: N, pinLimit: N): B =>
  f.or(f.not(request.pin), request.alreadyPinned, f.below(pinnedNow, pinLimit));

/** {@link pinAllowedIn} over values. */
export const pinAllowed = (request: { pin: boolean; alreadyPinned: boolean }, pinnedNow: number, pinLimit: number): boolean =>
  pinAllowedIn(VALUES, request, pinnedNow, pinLimit);

/**
 * What a restatement does to the memory's pin: `remember` with `pinned: true` pins it, with
 * `pinned: false` unpins it, and without `pinned` leaves it as it is (decision 0111).
 */
export type PinChange = 'pin' | 'unpin' | 'keep';

/** The pin change a `remember` asks of the memory it restates: absent `pinned` keeps the pin as it is. */
export const pinChangeOf = (pinned: boolean | undefined): PinChange => (pinned === undefined ? 'keep' : pinned ? 'pin' : 'unpin');

/** Whether a memory is pinned after a restatement's pin change: pinned if it was or the change pins, unless it unpins. */
export const pinnedAfterIn = <N, B>(f: Formula<N, B>, was: B, change: { readonly pin: B; readonly unpin: B }): B =>
  f.and(f.or(was, change.pin), f.not(change.unpin));

/** {@link pinnedAfterIn} over values. */
export const pinnedAfter = (was: boolean, change: { readonly pin: boolean; readonly unpin: boolean }): boolean =>
  pinnedAfterIn(VALUES, was, change);

/** Whether pins of `adding` more memories fit beside `have` (an import, which never evicts and checks the whole file before it writes). */
export const pinsFitIn = <N, B>(f: Formula<N, B>, have: N, adding: N, pinLimit: N): B =>
  f.or(f.equals(adding, f.constant(0)), f.atMost(f.plus(have, adding), pinLimit));

/** {@link pinsFitIn} over values. */
export const pinsFit = (have: number, adding: number, pinLimit: number): boolean => pinsFitIn(VALUES, have, adding, pinLimit);

/**
 * Whether a set of memories may take one state at once (the page): an unpin always may, a pin when
 * the `adding` not yet pinned fit beside the `have` pinned (decision 0112).
 */
export const setPinnedAllowedIn = <N, B>(f: Formula<N, B>, pin: B, have: N, adding: N, pinLimit: N): B =>
  f.or(f.not(pin), pinsFitIn(f, have, adding, pinLimit));

/** {@link setPinnedAllowedIn} over values. */
export const setPinnedAllowed = (pin: boolean, have: number, adding: number, pinLimit: number): boolean =>
  setPinnedAllowedIn(VALUES, pin, have, adding, pinLimit);
