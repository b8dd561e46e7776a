import { createHash, randomBytes } from 'node:crypto';

/** Recognisable prefix so secret scanners can find leaked naaba tokens. */
export const TOKEN_PREFIX = 'nb_';
const TOKEN_PATTERN = /^nb_[A-Za-z0-9_-]{43}$/;

/** A new high-entropy token: 256 random bits, base64url, behind the prefix. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token in an `Authorization: Bearer …` value, or undefined when the value is missing or malformed. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  const token = match?.[1];
  return token && TOKEN_PATTERN.test(token) ? token : undefined;
}
