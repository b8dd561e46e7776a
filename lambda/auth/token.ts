import { createHash, randomBytes } from 'node:crypto';

/** Recognisable prefixes so secret scanners can find leaked naaba secrets, and so a token says what it is. */
export const TOKEN_PREFIX = 'nb_';
/** OAuth: access tokens (bearer, an hour), refresh tokens (token endpoint only), authorization codes. */
export const ACCESS_PREFIX = 'nba_';
export const REFRESH_PREFIX = 'nbr_';
export const CODE_PREFIX = 'nbc_';

/** A bearer token: a key (`nb_`) or an OAuth access token (`nba_`), 256 bits in base64url. */
const BEARER_PATTERN = /^nba?_[A-Za-z0-9_-]{43}$/;

/** A new high-entropy secret: 256 random bits, base64url, behind the prefix. */
export function newToken(prefix = TOKEN_PREFIX): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** True for an OAuth access token, which is looked up among grants' tokens rather than keys. */
export const isAccessToken = (token: string) => token.startsWith(ACCESS_PREFIX);

/** The token in an `Authorization: Bearer …` value, or undefined when the value is missing or malformed. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  const token = match?.[1];
  return token && BEARER_PATTERN.test(token) ? token : undefined;
}
