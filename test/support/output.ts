import { jest } from '@jest/globals';
/**
 * Everything written to stdout and stderr while `act` runs (log lines, EMF metrics), with what
 * `act` returned, or the error it threw as `value`: tests of logs want both.
 */
export async function capturedOutput<T>(act: () => Promise<T>): Promise<{ value: T | unknown; output: string }> {
  const chunks: string[] = [];
  const keep = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(keep);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(keep);
  let value: T | unknown;
  try {
    value = await act();
  } catch (error) {
    value = error;
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { value, output: chunks.join('') };
}
