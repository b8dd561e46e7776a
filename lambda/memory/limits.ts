import { InvalidInputError } from './errors.js';

/** Documented limits of the tools: the same numbers go into the MCP schemas and the service checks. */
export const LIMITS = {
  contentBytes: 8192,
  originChars: 512,
  queryBytes: 8192,
  recallDefault: 10,
  recallMax: 50,
  forgetIdsMax: 100,
  journalPageDefault: 20,
  journalPageMax: 100,
  /** Latest restatement sources a memory keeps. */
  sourcesKept: 5,
} as const;

/** How long a text may be: in UTF-8 bytes (content, queries) or in characters (Unicode code points). */
export type TextLimit = { readonly bytes: number } | { readonly chars: number };

/**
 * Rejects text that would not be stored as sent, or that hides what it says: blank or made only
 * of invisible format characters, longer than its limit, holding an unpaired surrogate (PostgreSQL
 * would store U+FFFD instead), control characters (C0 but tab, line feed and carriage return; DEL;
 * C1), or bidirectional overrides and isolates (they can make text read otherwise than it is).
 * `outcome` ends a length refusal; a caller that says what was not written itself passes none.
 */
export function checkText(field: string, text: string, limit: TextLimit, outcome = ' Nothing was written.'): void {
  if (text.replace(/[\s\p{Cf}]+/gu, '') === '') throw new InvalidInputError(`${field} must not be empty`);
  if ('bytes' in limit) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > limit.bytes) {
      throw new InvalidInputError(`${field} is ${bytes} bytes; the limit is ${limit.bytes} bytes.${outcome}`);
    }
  } else {
    const chars = [...text].length;
    if (chars > limit.chars) {
      throw new InvalidInputError(`${field} is ${chars} characters; the limit is ${limit.chars}.${outcome}`);
    }
  }
  if (UNPAIRED_SURROGATE.test(text)) {
    throw new InvalidInputError(`${field} is not valid Unicode (an unpaired surrogate); send it as UTF-8 text`);
  }
  if (CONTROL.test(text)) throw new InvalidInputError(`${field} contains control characters (such as NUL); send plain text`);
  if (BIDI_CONTROL.test(text)) {
    throw new InvalidInputError(`${field} contains bidirectional override or isolate characters, which can hide what it says`);
  }
}

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** C0 controls but tab, line feed and carriage return; DEL; C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** Embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
