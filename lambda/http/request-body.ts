/**
 * The bound on a request body, the same for MCP and the page's API (and the local server, which
 * reads the body before any handler runs): content is capped at 8 KiB anyway, and an import file
 * larger than this goes through `naaba import` in parts.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as text, or undefined when it is over {@link MAX_BODY_BYTES} bytes. */
export async function boundedBody(request: Request): Promise<string | undefined> {
  const raw = await request.text();
  return Buffer.byteLength(raw) > MAX_BODY_BYTES ? undefined : raw;
}
