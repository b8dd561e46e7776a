/**
 * Pins are capped per user (default 50): past the cap a pin is refused with a clear error, never
 * grown silently. A memory already pinned costs nothing to pin again; unpinning is always allowed.
 * The count is of every memory the user has pinned (a pinned memory never expires).
 */
export function pinAllowed(request: { pin: boolean; alreadyPinned: boolean }, pinnedNow: number, pinLimit: number): boolean {
  return !request.pin || request.alreadyPinned || pinnedNow < pinLimit;
}

/** Whether pins of `adding` more memories fit beside `have` (an import, which never evicts and checks the whole file before it writes). */
export const pinsFit = (have: number, adding: number, pinLimit: number): boolean => adding === 0 || have + adding <= pinLimit;
