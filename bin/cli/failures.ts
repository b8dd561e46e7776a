/**
 * Failures a person causes or meets in the ordinary course (a folder named where a file belongs, a
 * file they may not write, a server that stopped), said in one line; only a defect prints a stack.
 */

/** What a file system refusal means, by its code; the path is named by the caller. */
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'has a part that is a file, not a directory',
  ENOENT: 'does not exist',
  EACCES: 'cannot be opened: permission denied',
  EPERM: 'cannot be changed: operation not permitted',
  EROFS: 'is on a read-only file system',
  ENOSPC: 'cannot be written: no space left on the device',
  ELOOP: 'is a loop of symbolic links',
  EEXIST: 'already exists',
};

/** The connection failures of `fetch` (undici puts the system's code on `cause`). */
const GONE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ETIMEDOUT', 'EHOSTUNREACH']);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** `PATH is a directory, not a file`, or undefined when the error is no file system refusal. */
export function fileProblem(path: string, error: unknown): string | undefined {
  const what = FILE_PROBLEMS[codeOf(error) ?? ''];
  return what ? `${path} ${what}` : undefined;
}

/** The system's code when a request never got its answer (the server is gone or went away mid-way). */
export function connectionLost(error: unknown): string | undefined {
  // By name: undici's TypeError may come from another realm than this module's (a test's VM).
  const failed = error as { name?: unknown; message?: unknown; cause?: { cause?: unknown } } | undefined;
  if (failed?.name !== 'TypeError') return undefined;
  const code = codeOf(failed.cause) ?? codeOf(failed.cause?.cause);
  if (code && GONE.has(code)) return code;
  return failed.message === 'fetch failed' ? 'no answer' : undefined;
}

/** The one line for an expected failure that reached the command line unwrapped; undefined for a defect. */
export function expectedFailure(error: unknown): string | undefined {
  const lost = connectionLost(error);
  if (lost) return `the server stopped answering (${lost}); nothing more was done. Start it again, or run without it`;
  const file = fileProblem((error as NodeJS.ErrnoException).path ?? 'a file', error);
  return file && (error as NodeJS.ErrnoException).syscall ? file : undefined;
}

/** A server the command was talking to did not answer: said with its address, no stack. */
export class ServerGoneError extends Error {
  override name = 'ServerGoneError';
}

/**
 * `fetch`, with a lost connection or an answer that is not JSON turned into a {@link ServerGoneError}
 * naming the server: a server stopped mid-command is an event, not a defect.
 */
export async function fetchJson(url: string, init: RequestInit): Promise<{ response: Response; body: Record<string, unknown> }> {
  const server = new URL(url).origin;
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    const lost = connectionLost(error);
    if (!lost) throw error;
    throw new ServerGoneError(
      `the server at ${server} stopped answering (${lost}) before it replied; whatever it finished is kept. Run the command again once it is back`,
    );
  }
  const text = await response.text().catch(() => undefined);
  if (text === undefined)
    throw new ServerGoneError(`the server at ${server} went away while it answered; run the command again once it is back`);
  try {
    return { response, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  } catch {
    throw new ServerGoneError(
      `the server at ${server} answered ${response.status} with something that is not JSON; is it naaba?`,
    );
  }
}
