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

/** Rejects text that is blank, too long in UTF-8 bytes, or carries NUL or other C0 control bytes. */
export function checkText(field: string, text: string, maxBytes: number): void {
  if (text.trim() === '') throw new InvalidInputError(`${field} must not be empty`);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new InvalidInputError(`${field} is ${bytes} bytes; the limit is ${maxBytes} bytes. Nothing was written.`);
  }
  if (hasControlCharacters(text)) {
    throw new InvalidInputError(`${field} contains control characters (such as NUL); send plain text`);
  }
}

/** Tab, line feed and carriage return are text; other C0 controls (NUL first of all) are not. */
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return true;
  }
  return false;
}
