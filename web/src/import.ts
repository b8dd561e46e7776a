import type { ImportJson } from '../../lambda/page/contract.js';
import { ApiError, api, REVOKED } from './api.js';
import { $, memoriesOf, size } from './dom.js';
import { page } from './state.js';

/** Import: a file checked whole, then written in calls that each say how far they got. */

/** The largest body an endpoint takes (lambda/http/request-body.ts). */
const MAX_IMPORT_BYTES = 1024 * 1024;

/** The import the page is running or can resume: the file's text, and how far the last call got. */
const importing = {
  name: '',
  text: null as string | null,
  running: false,
  stopping: false,
  written: 0,
  done: 0,
  total: 0,
};

interface Shown {
  readonly state?: string;
  readonly error?: string;
  readonly progress?: boolean;
  readonly resume?: boolean;
}

export function importShows({ state: text = '', error = '', progress = false, resume = false }: Shown): void {
  $('import-state').textContent = text;
  $('import-error').textContent = error;
  $('import-error').hidden = error === '';
  const bar = $<HTMLProgressElement>('import-progress');
  bar.hidden = !progress;
  bar.max = Math.max(1, importing.total);
  bar.value = Math.min(importing.done, importing.total);
  $<HTMLButtonElement>('import-start').disabled =
    importing.running || ($<HTMLInputElement>('import-file').files?.length ?? 0) === 0;
  $('import-stop').hidden = !importing.running;
  $<HTMLButtonElement>('import-stop').disabled = importing.stopping;
  $('import-resume').hidden = !resume || importing.running;
  $<HTMLInputElement>('import-file').disabled = importing.running;
}

const importedSoFar = () => `${importing.done} of ${memoriesOf(importing.total)} in place`;

/** The file's text, or a problem a person can fix before anything is sent. */
async function readImportFile(file: File): Promise<{ text: string } | { problem: string }> {
  if (file.size > MAX_IMPORT_BYTES)
    return {
      problem: `${file.name} is ${size(file.size)}; the page imports up to 1 MiB. Import it with naaba import in a terminal (in parts with --kind KIND), or stop the server and run naaba import on the folder. Nothing was written.`,
    };
  const text = await file.text();
  try {
    JSON.parse(text);
  } catch {
    return { problem: `${file.name} is not JSON: choose the file naaba export wrote. Nothing was written.` };
  }
  return { text };
}

export async function startImport(): Promise<void> {
  const file = $<HTMLInputElement>('import-file').files?.[0];
  if (!file || importing.running) return;
  const read = await readImportFile(file);
  if ('problem' in read) return importShows({ error: read.problem });
  Object.assign(importing, { name: file.name, text: read.text, written: 0, done: 0, total: 0 });
  await runImport();
}

/** Sends the file until the server says it is complete, the person stops it, or a call fails. */
export async function runImport(): Promise<void> {
  Object.assign(importing, { running: true, stopping: false });
  importShows({
    state: `Importing ${importing.name}: checking the whole file, then writing in steps…`,
    progress: importing.total > 0,
  });
  let report: ImportJson['imported'];
  try {
    do {
      report = (await api<ImportJson>('api/import', { method: 'POST', body: importing.text ?? '' })).imported;
      importing.written += report.written;
      importing.total = report.memories - report.expired;
      importing.done = report.written + report.alreadyPresent;
      if (!report.complete) importShows({ state: `Importing ${importing.name}: ${importedSoFar()}…`, progress: true });
    } while (!report.complete && !importing.stopping);
  } catch (error) {
    importing.running = false;
    if (error instanceof ApiError && error.reason === 'unauthorized') return page.signOut(REVOKED, true);
    const refused = error instanceof ApiError && error.status === 400;
    const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
    if (refused && importing.done === 0) {
      importing.text = null;
      return importShows({ error: `${importing.name} was not imported: ${message}. Nothing was written.` });
    }
    const where = importing.total > 0 ? ` What is written stays (${importedSoFar()}).` : '';
    return importShows({
      error: `The import stopped: ${message}.${where} Resume goes on where it stopped.`,
      progress: importing.total > 0,
      resume: !refused,
    });
  }
  importing.running = false;
  if (!report.complete) {
    return importShows({
      state: `Stopped: ${importedSoFar()}. What is written stays; Resume goes on where it stopped.`,
      progress: true,
      resume: true,
    });
  }
  const present = importing.total - importing.written;
  const parts = [`${memoriesOf(importing.written)} written`, `${present} already here`];
  if (report.expired > 0) parts.push(`${report.expired} expired before the import (not written)`);
  parts.push(`${report.links} conflict links`, `${report.journalLines} journal lines added`);
  importing.text = null;
  importShows({ state: `Imported ${importing.name}: ${parts.join(', ')}.`, progress: true });
  await page.refresh();
}

export function stopImport(): void {
  importing.stopping = true;
  importShows({ state: `Stopping after this step: ${importedSoFar()}…`, progress: importing.total > 0 });
}

/** Forgets the import in progress: on sign-out. */
export function resetImport(): void {
  Object.assign(importing, { name: '', text: null, stopping: true, written: 0, done: 0, total: 0 });
  $<HTMLInputElement>('import-file').value = '';
  importShows({});
}
