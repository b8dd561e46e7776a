/**
 * Pins are capped per user (default 50): past the cap a pin is refused with a clear error, never
 * grown silently. A memory already pinned costs nothing to pin again; unpinning is always allowed.
 * The count is of every memory the user has pinned (a pinned memory never expires).
 */
export function pinAllowed(request: { pin: boolean; alreadyPinned: boolean }, pinnedNow: number, pinLimit: number): boolean {
  return !request.pin || request.alreadyPinned || pinnedNow < pinLimit;
}

/**
 * What a restatement does to the memory's pin: `remember` with `pinned: true` pins it, with
 * `pinned: false` unpins it, and without `pinned` leaves it as it is (decision 0111).
 */
export type PinChange = 'pin' | 'unpin' | 'keep';

/** The pin change a `remember` asks of the memory it restates: absent `pinned` keeps the pin as it is. */
export const pinChangeOf = (pinned: boolean | undefined): PinChange => (pinned === undefined ? 'keep' : pinned ? 'pin' : 'unpin');

/** Whether pins of `adding` more memories fit beside `have` (an import, which never evicts and checks the whole file before it writes). */
export const pinsFit = (have: number, adding: number, pinLimit: number): boolean => adding === 0 || have + adding <= pinLimit;
