import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * The token hashes of every key not revoked (the local server's proof that a token names no key,
 * decision 0106): a full scan is the point, and the hashes are only ever compared.
 */
export const LIVE_KEY_HASHES = statement<Record<string, never>, { token_sha256: string }>({
  name: 'keys/live-key-hashes',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT k.token_sha256 FROM api_keys k WHERE k.token_sha256 IS NOT NULL AND k.revoked_at IS NULL`,
});
