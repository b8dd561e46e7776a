import { forgetAll, forgetKind, forgetSelected, pinSelected } from './actions.js';
import { guarded, say, TOKEN_KEY } from './api.js';
import { copyConnect, loadConnect, showConnect } from './connect.js';
import { $ } from './dom.js';
import { exportAll } from './export.js';
import { foldFiltersOnPhones, showFilterSummary } from './filters.js';
import { importShows, runImport, startImport, stopImport } from './import.js';
import { loadJournal, redrawJournal, setRange } from './journal.js';
import { filtersChanged, listAgain, loadMemories, loadWriters, searchAsYouType, searchNow, shown } from './memories.js';
import { loadNext } from './next.js';
import { loadPicture, redrawPicture } from './over-time.js';
import { loadOverview } from './overview.js';
import { clearSelection, selectAllShown } from './selection.js';
import { enter, signIn, signOut } from './sign-in.js';
import { page, type Range, state, type ViewName } from './state.js';

/**
 * The memory page (decision 0053, 0138): plain DOM, one section per module, over the typed API of
 * lambda/page/contract.ts. This module wires the controls and moves between views.
 */

const VIEWS: Record<ViewName, () => Promise<void>> = {
  overview: () => loadOverview().then(loadConnect),
  // What the search box holds is what the list shows: a search typed before stays a search.
  memories: () => loadWriters().then(() => searchNow()),
  journal: () => loadJournal(0),
  time: () => loadOverview().then(loadPicture),
  next: loadNext,
};

async function show(name: ViewName): Promise<void> {
  state.view = name;
  for (const b of document.querySelectorAll<HTMLElement>('[data-view]')) {
    if (b.dataset.view === name) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  for (const key of Object.keys(VIEWS)) $(`view-${key}`).hidden = key !== name;
  say('');
  await guarded(async () => {
    if (!state.overview && name !== 'overview') await loadOverview();
    await VIEWS[name]();
  });
}

async function refresh(): Promise<void> {
  await loadOverview();
  if (state.view === 'memories') await listAgain();
  if (state.view === 'next') await loadNext();
}

function redraw(): void {
  if (state.view === 'journal') redrawJournal();
  if (state.view === 'time') redrawPicture();
}

const on = (id: string, event: string, handler: (event: Event) => unknown) =>
  $(id).addEventListener(event, (e) => void handler(e));

function wireMemories(): void {
  on('kind', 'change', (event) => {
    state.kind = (event.target as HTMLSelectElement).value;
    return guarded(listAgain);
  });
  on('order', 'change', () => guarded(() => loadMemories()));
  for (const id of ['agent', 'client', 'pinned', 'conflicting', 'origin']) on(id, 'change', filtersChanged);
  on('filters', 'submit', (event) => {
    event.preventDefault();
    return filtersChanged();
  });
  on('search', 'submit', (event) => {
    event.preventDefault();
    return searchNow();
  });
  on('q', 'input', searchAsYouType);
  on('clear-search', 'click', () => {
    $<HTMLInputElement>('q').value = '';
    return searchNow();
  });
  on('select-all', 'change', () => selectAllShown(shown));
  on('pin-selected', 'click', () => pinSelected(true));
  on('unpin-selected', 'click', () => pinSelected(false));
  on('forget-selected', 'click', forgetSelected);
  on('clear-selection', 'click', clearSelection);
  on('more-memories', 'click', () => guarded(() => loadMemories(true)));
  on('compare-close', 'click', () => {
    $('compare').hidden = true;
  });
  on('forget-kind', 'click', forgetKind);
  on('forget-all', 'click', forgetAll);
}

function wire(): void {
  on('sign-in', 'submit', (event) => {
    event.preventDefault();
    const input = $<HTMLInputElement>('token');
    const token = input.value.trim();
    input.value = '';
    return signIn(token);
  });
  on('sign-out', 'click', () => signOut('Signed out.'));
  for (const b of document.querySelectorAll<HTMLElement>('[data-view]'))
    b.addEventListener('click', () => void show(b.dataset.view as ViewName));
  wireMemories();
  let resizing: ReturnType<typeof setTimeout> | undefined;
  addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(redraw, 200);
  });
  on('journal-next', 'click', () => guarded(() => loadJournal(state.journalPage + 1)));
  on('journal-first', 'click', () => guarded(() => loadJournal(0)));
  for (const b of document.querySelectorAll<HTMLElement>('[data-range]'))
    b.addEventListener('click', () => void setRange(b.dataset.range as Range));
  on('connect-client', 'change', showConnect);
  on('connect-key', 'change', showConnect);
  on('connect-copy', 'click', copyConnect);
  on('export', 'click', () => guarded(exportAll));
  on('import-file', 'change', () => importShows({}));
  on('import-start', 'click', () => guarded(startImport));
  on('import-stop', 'click', stopImport);
  on('import-resume', 'click', () => guarded(runImport));
}

Object.assign(page, { refresh, show, signOut });
wire();
foldFiltersOnPhones();
showFilterSummary();
if (sessionStorage.getItem(TOKEN_KEY)) {
  void guarded(async () => {
    await loadOverview();
    await enter();
  });
} else signOut('');
