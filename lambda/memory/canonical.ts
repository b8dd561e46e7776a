import { createHash } from 'node:crypto';

/**
 * The form in which two texts that differ only in Unicode compatibility forms, diacritics, case,
 * whitespace or punctuation are equal: "Le siège est à Ouagadougou." and
 * "le siege est a ouagadougou" both become `le siege est a ouagadougou`.
 */
export function canonicalText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .toLowerCase()
    .replace(/[\p{P}\p{S}\p{Z}\s]+/gu, ' ')
    .trim();
}

/** SHA-256 of the canonical text: equal fingerprints mean an exact restatement, merged without a judge. */
export function fingerprint(text: string): string {
  const canonical = canonicalText(text);
  // Text made only of punctuation has an empty canonical form: keep it distinct from other such text.
  return createHash('sha256')
    .update(canonical === '' ? `raw:${text}` : canonical)
    .digest('hex');
}
