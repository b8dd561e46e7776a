/* A type of its own file: the memory page's typecheck reads it without the importer's Node code. */

/** What an import did, in numbers a person can check against the file. */
export interface ImportReport {
  /** Memories in the file. */
  readonly memories: number;
  readonly written: number;
  /** Equal (same kind and text) to a memory the caller already had: not written again. */
  readonly alreadyPresent: number;
  /** Expired by the time of the import (a session memory exported a day ago): not written. */
  readonly expired: number;
  readonly links: number;
  /** Journal lines added; lines the caller already had are not added again. */
  readonly journalLines: number;
  /** Steps the memories were written in, by this call. */
  readonly steps: number;
  /**
   * False when the call stopped at its time bound before every memory was handled: what is written
   * stays, and the same file sent again continues (the links and journal lines come at the end).
   */
  readonly complete: boolean;
}
