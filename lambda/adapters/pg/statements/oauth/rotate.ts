import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface RotateInputs {
  readonly refreshSha256: string;
  readonly now: Date;
  readonly clientId: string;
  readonly accessSha256: string;
  readonly accessExpiresAt: Date;
  readonly nextRefreshSha256: string;
  readonly nextRefreshExpiresAt: Date;
  /** A token replaced after this instant may still be used once more (a client's lost answer). */
  readonly graceSince: Date;
}

/**
 * A refresh token of a live grant of the client replaced by a new pair, in one statement. The
 * token is live and not yet replaced, or replaced after the grace start and still unexpired (no
 * replacement of it has been used). Using a token ends its parent and its siblings (they expire
 * now), so a parent presented again after that is reuse. Run by a routine of the owner's, which
 * bounds the new tokens' expiry: the MCP function writes no token itself (decision 0130).
 */
export const ROTATE = statement<RotateInputs, { issued: number | string }>({
  name: 'oauth/rotate',
  expects: {},
  render: (p) => sql`SELECT issued, replaced, ended FROM naaba_rotate_refresh(
      ${p.refreshSha256}, ${p.now}::timestamptz, ${p.clientId}, ${p.accessSha256}, ${p.accessExpiresAt}::timestamptz,
      ${p.nextRefreshSha256}, ${p.nextRefreshExpiresAt}::timestamptz, ${p.graceSince}::timestamptz)`,
});
