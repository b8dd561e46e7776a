/**
 * CloudWatch Logs filter patterns over unstructured log events, as far as the stack uses them:
 * terms, bare or in double quotes, each of which the event must contain (case-sensitively); a term
 * after `-` the event must not contain; terms after `?` of which it must contain one. Enough to
 * hold the stack's patterns against the lines the Lambda runtime writes.
 */
export function filterMatches(pattern: string, event: string): boolean {
  const terms = [...pattern.matchAll(/([-?])?(?:"([^"]*)"|(\S+))/g)].map((m) => ({
    sign: m[1] ?? '',
    text: m[2] ?? m[3] ?? '',
  }));
  const anyOf = terms.filter((t) => t.sign === '?');
  if (anyOf.length > 0) return anyOf.some((t) => event.includes(t.text));
  return terms.every((t) => (t.sign === '-' ? !event.includes(t.text) : event.includes(t.text)));
}
