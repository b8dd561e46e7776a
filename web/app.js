// The memory page: plain DOM, same-origin fetches with the key as a bearer token, every piece of
// user text set through text nodes. The key lives in sessionStorage only. One file, because the
// stack serves exactly /, /app.js and /app.css (decision 0053); sections follow the views.

const TOKEN_KEY = 'naaba.key';
const RULES = ['ceiling', 'expiry', 'duplicate', 'superseded'];
const RULE_WORDS = {
  ceiling: 'evicted at a kind’s ceiling',
  expiry: 'expired after its kind’s time to live',
  duplicate: 'merged into the memory it restated',
  superseded: 'replaced by a newer memory, deleted after its grace period',
};
const SVG = 'http://www.w3.org/2000/svg';
const TOKEN_PLACEHOLDER = 'nb_…';
const UNKNOWN_KEY =
  'This key is not known here. Check that it was copied whole (a key starts with nb_), and that it was not revoked.';
const REVOKED = 'Signed out: this key was revoked or is no longer valid. Sign in with another key.';
/** Memories longer than this show collapsed, with a way to expand. */
const COLLAPSE = { chars: 480, lines: 6 };

const $ = (id) => document.getElementById(id);
const fresh = () => ({
  overview: null,
  kind: '',
  cursor: null,
  query: '',
  total: 0,
  journal: [null],
  journalPage: 0,
  range: 'days',
  clients: [],
  /** The memories ticked in the list, by id: only ones on screen. */
  selected: new Map(),
  /** The last journal series drawn, to draw again at another width. */
  series: null,
});
let state = fresh();

class ApiError extends Error {
  /** `reason`: unauthorized, forbidden, network or failed; `status`: the server's answer, where there was one. */
  constructor(message, reason, status) {
    super(message);
    this.reason = reason;
    this.status = status;
  }
}

// ---- Elements and text

/** Creates an element with text and classes; text always goes in as text, never markup. */
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function button(text, onClick, className) {
  const b = el('button', text, className);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

/** Characters that show nothing but change what text is: each is shown as a marked code point. */
// The zero-width joiner stands apart: inside a character class it reads as joining its neighbours.
const INVISIBLE = /[\u00AD\u061C\u180E\u200B\u200C\u200E\u200F\u2060-\u2064\u206A-\u206F\u3164\uFEFF\uFFA0]|\u200D/gu;
const INVISIBLE_NAMES = {
  '\u00AD': 'soft hyphen',
  '\u061C': 'Arabic letter mark',
  '\u180E': 'Mongolian vowel separator',
  '\u200B': 'zero-width space',
  '\u200C': 'zero-width non-joiner',
  '\u200D': 'zero-width joiner',
  '\u200E': 'left-to-right mark',
  '\u200F': 'right-to-left mark',
  '\u2060': 'word joiner',
  '\uFEFF': 'zero-width no-break space',
};
const ASCII = /^[\x20-\x7E]?$/;

/**
 * Whether an invisible character should be shown. Joiners (U+200C, U+200D) belong inside emoji
 * sequences and many scripts; between plain ASCII characters, or at either end, they only hide.
 */
function hides(text, index) {
  const c = text[index];
  if (c !== '\u200C' && c !== '\u200D') return true;
  return ASCII.test(text[index - 1] ?? '') && ASCII.test(text[index + 1] ?? '');
}

/** Puts user text into `node` as text nodes, each invisible character as a visible marker; returns how many. */
function textInto(node, text) {
  const value = String(text ?? '');
  let shown = 0;
  let last = 0;
  for (const match of value.matchAll(INVISIBLE)) {
    if (!hides(value, match.index)) continue;
    node.append(value.slice(last, match.index));
    const code = `U+${match[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    const marker = el('span', code, 'invisible');
    marker.title = `invisible character: ${INVISIBLE_NAMES[match[0]] ?? 'format character'} (${code})`;
    node.append(marker);
    last = match.index + match[0].length;
    shown += 1;
  }
  node.append(value.slice(last));
  return shown;
}

/** An element holding user text: direction from its own text, invisible characters shown. */
function userText(tag, text, className) {
  const node = el(tag, undefined, className);
  node.dir = 'auto';
  node.dataset.invisible = String(textInto(node, text));
  return node;
}

const bytes = (text) => new TextEncoder().encode(text).length;
const size = (n) => (n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} KB`);

// ---- Time

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const STEPS = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago", "in 2 hours": the nearest whole unit. */
function relative(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(seconds) >= size || unit === 'second') return RELATIVE.format(Math.round(seconds / size), unit);
  }
  return '';
}

const absolute = (iso) => new Date(iso).toLocaleString();

/** A `<time>`: relative in the text, absolute on hover. */
function timeEl(iso) {
  const node = el('time', relative(iso));
  node.dateTime = iso;
  node.title = absolute(iso);
  return node;
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return 'never';
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ])
    if (seconds >= size) return `${Math.round(seconds / size)}${unit}`;
  return `${Math.round(seconds)}s`;
}

// ---- Talking to the server, and what the page says about it

let inFlight = 0;

function busy(change) {
  inFlight += change;
  $('busy').textContent = inFlight > 0 ? 'Loading…' : '';
  $('main').setAttribute('aria-busy', String(inFlight > 0));
}

/** An error in the alert style; it stays until the next call that works. */
function showError(message) {
  const notice = $('notice');
  notice.textContent = message ?? '';
  notice.hidden = !message;
}

/** A neutral word on what just happened (never the alert style). */
function say(message) {
  const status = $('status');
  status.textContent = message ?? '';
  status.hidden = !message;
}

function stale(yes) {
  $('stale').hidden = !yes;
}

async function api(path, { method = 'GET', missing = false, body } = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new ApiError('not signed in', 'unauthorized');
  busy(1);
  try {
    let response;
    try {
      response = await fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      stale(true);
      throw new ApiError(
        `Could not reach naaba at ${location.host}: the server may be stopped or the network down. Nothing was changed.`,
        'network',
      );
    }
    const answer = await response.json().catch(() => ({}));
    if (response.status === 401) throw new ApiError(UNKNOWN_KEY, 'unauthorized');
    if (response.status === 403)
      throw new ApiError(answer.message ?? answer.error ?? 'this key is not for this endpoint', 'forbidden');
    if (missing && response.status === 404) return null;
    if (!response.ok)
      throw new ApiError(answer.error ?? answer.message ?? `the server answered ${response.status}`, 'failed', response.status);
    stale(false);
    showError('');
    return answer;
  } finally {
    busy(-1);
  }
}

/** Runs an action, showing its failure as text; a key that stopped working signs out. */
async function guarded(action) {
  try {
    await action();
  } catch (error) {
    if (error instanceof ApiError && error.reason === 'unauthorized') return signOut(REVOKED, true);
    showError(error instanceof Error ? error.message : String(error));
  }
}

/** A confirmation in a modal dialog: Escape or Cancel says no. */
function confirmed(message, action) {
  const dialog = $('confirm');
  $('confirm-text').textContent = message;
  $('confirm-ok').textContent = action;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}

// ---- Overview, connecting an agent, export

function meter(value, max, label) {
  const gauge = el('meter');
  gauge.min = 0;
  gauge.max = Math.max(max, 1);
  gauge.value = value;
  gauge.high = gauge.max * 0.9;
  gauge.setAttribute('aria-label', label);
  return gauge;
}

function facts(pairs) {
  const list = el('dl', undefined, 'facts');
  for (const [term, value] of pairs) list.append(el('dt', term), el('dd', value));
  return list;
}

const totalOf = (overview) => overview.kinds.reduce((n, k) => n + k.count, 0);
const ruleOf = (kind) => state.overview?.kinds.find((k) => k.kind === kind);

async function loadOverview() {
  const overview = await api('api/overview');
  state.overview = overview;
  const total = totalOf(overview);
  $('totals').textContent =
    total === 0
      ? 'Nothing remembered yet: connect an agent below, and what it remembers shows here.'
      : `${total} memories kept, ${overview.pinned} of ${overview.pinLimit} pinned.`;
  $('kinds').replaceChildren(
    ...overview.kinds.map((k) => {
      const card = el('article', undefined, 'card');
      card.dataset.kind = k.kind;
      const line = el('p');
      line.append(el('span', k.count, 'count'), ` of ${k.ceiling}`);
      card.append(el('h3', k.kind), meter(k.count, k.ceiling, `${k.kind}: ${k.count} of ${k.ceiling}`), line);
      card.append(
        facts([
          ['expires after', k.ttlSeconds === null ? 'never' : duration(k.ttlSeconds)],
          ['pinned', k.pinned],
        ]),
      );
      return card;
    }),
  );
  const judge = overview.judge;
  const health = judge.lastCallOk === null ? 'not called yet' : judge.lastCallOk ? 'last call worked' : 'last call failed';
  const pins = el('dd');
  pins.append(
    meter(overview.pinned, overview.pinLimit, `pinned ${overview.pinned} of ${overview.pinLimit}`),
    ` ${overview.pinned} of ${overview.pinLimit}`,
  );
  const judgeLine = el('dd', `${judge.name}: ${health}`, judge.lastCallOk === false ? 'bad' : '');
  judgeLine.id = 'judge';
  $('engine').replaceChildren(
    el('dt', 'pinned'),
    pins,
    el('dt', 'judge'),
    judgeLine,
    el('dt', 'embedder'),
    el('dd', overview.embedder),
  );
  // An empty memory opens on how to connect an agent.
  const view = $('view-overview');
  if (total === 0) view.insertBefore($('connect'), $('kinds'));
  else view.insertBefore($('connect'), $('engine').nextSibling);
  $('connect-intro').textContent =
    total === 0
      ? 'Nothing is remembered yet. Give your MCP client this endpoint and a key; its memories then show here. Pick the client:'
      : 'Connect another agent: give its MCP client this endpoint and a key. Pick the client:';
  fillKindSelect();
}

function fillKindSelect() {
  const select = $('kind');
  const options = [el('option', 'All kinds'), ...state.overview.kinds.map((k) => el('option', k.kind))];
  options[0].value = '';
  select.replaceChildren(...options);
  select.value = state.kind;
}

const mcpUrl = () => new URL('mcp', location.href).href;

async function loadConnect() {
  if (state.clients.length > 0) return;
  const found = await api(`api/connect?${new URLSearchParams({ url: mcpUrl() })}`);
  state.clients = found.clients;
  $('connect-client').replaceChildren(
    ...state.clients.map((c) => {
      const option = el('option', c.name);
      option.value = c.client;
      return option;
    }),
  );
  showConnect();
}

function showConnect() {
  const chosen = state.clients.find((c) => c.client === $('connect-client').value) ?? state.clients[0];
  if (!chosen) return;
  const withKey = $('connect-key').checked && chosen.holdsToken;
  const text = withKey ? chosen.text.replaceAll(TOKEN_PLACEHOLDER, sessionStorage.getItem(TOKEN_KEY) ?? '') : chosen.text;
  $('connect-text').textContent = text;
  $('connect-where').textContent =
    chosen.form === 'command'
      ? `${chosen.name}: run this in ${chosen.where}`
      : `${chosen.name}: put this in ${chosen.where}${chosen.holdsToken ? '' : ' (it asks for the key itself)'}`;
  $('connect-key').disabled = !chosen.holdsToken;
  // The server's line: a key of the signed-in user for the client, and its configuration written.
  $('connect-cli').textContent = chosen.command;
}

async function copyConnect() {
  const text = $('connect-text').textContent;
  try {
    await navigator.clipboard.writeText(text);
    say(text.includes(TOKEN_PLACEHOLDER) ? 'Copied; replace nb_… with your key.' : 'Copied.');
  } catch {
    getSelection().selectAllChildren($('connect-text'));
    say('Selected: press Ctrl+C (⌘C) to copy.');
  }
}

/** Every page of an export read: memories, then journal lines. */
async function allPages(path, field) {
  const items = [];
  let cursor = null;
  do {
    const page = await api(`${path}${cursor ? `?${new URLSearchParams({ cursor })}` : ''}`);
    items.push(...page[field]);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** Downloads the file `naaba import` reads (docs/export-format.md). */
async function exportAll() {
  const memories = await allPages('api/export/memories', 'memories');
  const journal = await allPages('api/export/journal', 'lines');
  const exportedAt = new Date().toISOString();
  const file = { format: 'naaba-memories', version: 1, exportedAt, memories, journal };
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: 'application/json' }));
  const link = el('a');
  link.href = url;
  link.download = `naaba-memories-${exportedAt.slice(0, 10)}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  say(`Downloaded ${memories.length} memories and ${journal.length} journal lines.`);
}

// ---- Import: a file checked whole, then written in calls that each say how far they got

/** The largest body an endpoint takes (lambda/http/request-body.ts). */
const MAX_IMPORT_BYTES = 1024 * 1024;
/** The import the page is running or can resume: the file's text, and how far the last call got. */
const importing = { name: '', text: null, running: false, stopping: false, written: 0, done: 0, total: 0 };

function importShows({ state: text = '', error = '', progress = false, resume = false }) {
  $('import-state').textContent = text;
  $('import-error').textContent = error;
  $('import-error').hidden = error === '';
  const bar = $('import-progress');
  bar.hidden = !progress;
  bar.max = Math.max(1, importing.total);
  bar.value = Math.min(importing.done, importing.total);
  $('import-start').disabled = importing.running || $('import-file').files.length === 0;
  $('import-stop').hidden = !importing.running;
  $('import-stop').disabled = importing.stopping;
  $('import-resume').hidden = !resume || importing.running;
  $('import-file').disabled = importing.running;
}

const memoriesOf = (n) => `${n} ${n === 1 ? 'memory' : 'memories'}`;
const importedSoFar = () => `${importing.done} of ${memoriesOf(importing.total)} in place`;

/** The file's text, or a problem a person can fix before anything is sent. */
async function readImportFile(file) {
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

async function startImport() {
  const file = $('import-file').files[0];
  if (!file || importing.running) return;
  const read = await readImportFile(file);
  if (read.problem) return importShows({ error: read.problem });
  Object.assign(importing, { name: file.name, text: read.text, written: 0, done: 0, total: 0 });
  await runImport();
}

/** Sends the file until the server says it is complete, the person stops it, or a call fails. */
async function runImport() {
  Object.assign(importing, { running: true, stopping: false });
  importShows({
    state: `Importing ${importing.name}: checking the whole file, then writing in steps…`,
    progress: importing.total > 0,
  });
  let report;
  try {
    do {
      report = (await api('api/import', { method: 'POST', body: importing.text })).imported;
      importing.written += report.written;
      importing.total = report.memories - report.expired;
      importing.done = report.written + report.alreadyPresent;
      if (!report.complete) importShows({ state: `Importing ${importing.name}: ${importedSoFar()}…`, progress: true });
    } while (!report.complete && !importing.stopping);
  } catch (error) {
    importing.running = false;
    if (error instanceof ApiError && error.reason === 'unauthorized') return signOut(REVOKED, true);
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
  await refreshAfterChange();
}

function stopImport() {
  importing.stopping = true;
  importShows({ state: `Stopping after this step: ${importedSoFar()}…`, progress: importing.total > 0 });
}

// ---- Memories

/** How close a search hit is, in words: from its distance in meaning (0 is the same). */
function relevance(m) {
  if (typeof m.distance !== 'number') return '';
  if (m.distance <= 0.35) return 'very close in meaning';
  if (m.distance <= 0.6) return 'close in meaning';
  if (m.distance <= 0.85) return 'related';
  return 'a weak match';
}

function expiresAt(m) {
  const ttl = ruleOf(m.kind)?.ttlSeconds;
  return m.pinned || ttl === null || ttl === undefined ? null : new Date(Date.parse(m.lastUsefulAt) + ttl * 1000).toISOString();
}

const pinsFull = () => state.overview && state.overview.pinned >= state.overview.pinLimit;

function contentBlock(m) {
  const content = userText('p', m.content, 'content');
  content.id = `content-${m.id}-${Math.random().toString(36).slice(2, 8)}`;
  const long = m.content.length > COLLAPSE.chars || m.content.split('\n').length > COLLAPSE.lines;
  if (!long) return [content];
  content.classList.add('collapsed');
  const more = `Show all (${size(bytes(m.content))})`;
  const toggle = button(
    more,
    () => {
      const open = content.classList.toggle('collapsed') === false;
      toggle.textContent = open ? 'Show less' : more;
      toggle.setAttribute('aria-expanded', String(open));
    },
    'link expand',
  );
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', content.id);
  return [content, toggle];
}

/** A pin or unpin button; at the pin limit a Pin button is off and says why in its own text (a phone shows no tooltip). */
function pinButton(m, note = 'pin-note') {
  const full = !m.pinned && pinsFull();
  const label = m.pinned ? 'Unpin' : full ? 'Pin (limit reached)' : 'Pin';
  const b = button(label, () => setPinned(m, !m.pinned), 'small');
  b.setAttribute('aria-label', `${label}: ${m.content.slice(0, 60)}`);
  if (full) {
    b.disabled = true;
    b.setAttribute('aria-describedby', note);
  }
  return b;
}

/** The tick that adds a memory to the selection. */
function selectBox(m) {
  const label = el('label', undefined, 'check select');
  const box = el('input');
  box.type = 'checkbox';
  box.checked = state.selected.has(m.id);
  box.setAttribute('aria-label', `Select: ${m.content.slice(0, 60)}`);
  box.addEventListener('change', () => {
    if (box.checked) state.selected.set(m.id, m);
    else state.selected.delete(m.id);
    selectionBar();
  });
  label.append(box, 'Select');
  return label;
}

function memoryCard(m, { actions = true, select = false } = {}) {
  const item = el('li', undefined, 'card memory');
  item.dataset.id = m.id;
  item.append(...contentBlock(m));
  const who = el('p', undefined, 'meta');
  who.append(el('span', m.kind, 'tag'));
  if (m.pinned) who.append(' ', el('span', 'pinned', 'tag pinned'));
  if (m.supersededBy) who.append(' ', el('span', 'replaced by a newer memory', 'tag conflict'));
  else if (m.supersedes?.length) who.append(' ', el('span', 'replaces an earlier memory', 'tag'));
  else if (m.conflicts?.length) who.append(' ', el('span', 'conflict', 'tag conflict'));
  who.append(' by ', userText('bdi', m.agent), ' · ', userText('bdi', m.client));
  if (m.origin) who.append(' · from ', userText('bdi', m.origin));
  const when = el('p', undefined, 'meta');
  when.append('created ', timeEl(m.createdAt), ' · last useful ', timeEl(m.lastUsefulAt));
  when.append(` · recalled ${m.recallCount}×`);
  if (m.restatements > 1) when.append(` · stated ${m.restatements}×`);
  const expires = expiresAt(m);
  if (expires) when.append(' · expires ', timeEl(expires));
  const invisible = Number(item.querySelector('.content')?.dataset.invisible ?? 0);
  if (invisible > 0) when.append(el('span', ` · holds ${invisible} invisible character${invisible > 1 ? 's' : ''}`, 'bad'));
  item.append(who, when);
  const match = relevance(m);
  if (match) item.append(el('p', `Match: ${match}`, 'meta relevance'));
  if (m.restatedBy?.length) {
    const details = el('details', undefined, 'restated');
    details.append(el('summary', `Restated by ${m.restatedBy.length}`));
    const list = el('ul');
    for (const r of m.restatedBy) {
      const line = el('li');
      line.append(userText('bdi', r.agent), ' · ', userText('bdi', r.client));
      if (r.origin) line.append(' · ', userText('bdi', r.origin));
      line.append(' · ', timeEl(r.at));
      list.append(line);
    }
    details.append(list);
    item.append(details);
  }
  if (!actions) return item;
  const row = el('div', undefined, 'row actions');
  if (select) row.append(selectBox(m));
  for (const id of m.conflicts ?? []) {
    // The card's tag says which side of a supersession it is ("replaced by a newer memory").
    const b = button('Compare', () => guarded(() => compare(m, id)), 'small');
    b.setAttribute('aria-label', `Compare with the memory it contradicts: ${m.content.slice(0, 60)}`);
    row.append(b);
  }
  row.append(pinButton(m));
  const forget = button('Forget', () => forgetOne(m), 'warn small');
  forget.setAttribute('aria-label', `Forget: ${m.content.slice(0, 60)}`);
  row.append(forget);
  item.append(row);
  return item;
}

async function compare(m, otherId) {
  // Read fresh by id, whether or not it is on this page: it may have changed or gone since.
  const other = (await api(`api/memories/${encodeURIComponent(otherId)}`, { missing: true }))?.memory;
  const right = other
    ? memoryCard(other)
    : el('li', 'The other memory is gone: forgotten, evicted or expired. This one stands alone now.', 'card');
  $('compare-pair').replaceChildren(memoryCard(m), right);
  $('compare').hidden = false;
  $('compare').focus();
}

function listParams() {
  const params = new URLSearchParams({ order: $('order').value });
  if (state.kind) params.set('kind', state.kind);
  for (const name of ['agent', 'client', 'pinned']) if ($(name).value) params.set(name, $(name).value);
  const origin = $('origin').value.trim();
  if (origin) params.set('origin', origin);
  if ($('conflicting').checked) params.set('conflicting', 'true');
  return params;
}

const filtered = (params) => ['agent', 'client', 'origin', 'pinned', 'conflicting'].some((f) => params.has(f));

function showEmpty(message, action) {
  const box = $('empty');
  box.replaceChildren(el('p', message));
  if (action) box.append(action);
  box.hidden = false;
}

/** Shows or hides the forget buttons: nothing to forget, no button. */
function dangerButtons() {
  const total = state.overview ? totalOf(state.overview) : 0;
  const ofKind = state.kind ? (ruleOf(state.kind)?.count ?? 0) : 0;
  $('forget-kind').hidden = ofKind === 0;
  $('forget-kind').textContent = `Forget every ${state.kind} memory`;
  $('forget-all').hidden = total === 0;
  $('danger').hidden = total === 0;
}

function pinNote() {
  const o = state.overview;
  if (!o) return;
  $('pin-note').textContent =
    o.pinned >= o.pinLimit
      ? `${o.pinned} of ${o.pinLimit} pinned: the pin limit. Unpin one to pin another.`
      : `${o.pinned} of ${o.pinLimit} pinned. A pinned memory is never evicted and never expires.`;
}

/** Each listing or search asked, numbered: only the answer to the latest is drawn (typing asks often). */
let lists = 0;

function render(memories, append) {
  const list = $('memories');
  if (!append) list.replaceChildren();
  // How many times the list was drawn: lets a reader (or a test) tell a new answer from the last one.
  list.dataset.renders = String(Number(list.dataset.renders ?? 0) + 1);
  $('empty').hidden = true;
  // A selection holds only what is on screen: a new list keeps the ticks of what it still shows, fresh.
  const shown = new Map(memories.map((m) => [m.id, m]));
  if (!append)
    state.selected = new Map([...state.selected.keys()].filter((id) => shown.has(id)).map((id) => [id, shown.get(id)]));
  for (const m of memories) {
    list.append(memoryCard(m, { select: true }));
  }
  pinNote();
  dangerButtons();
  selectionBar();
}

// ---- Several at once: pin, unpin or forget the selection, all or none

/** What the selection bar offers, each control that is off saying why in text. */
function selectionBar() {
  const chosen = [...state.selected.values()];
  $('selection').hidden = chosen.length === 0;
  if (chosen.length === 0) return;
  $('selection-count').textContent = `${memoriesOf(chosen.length)} selected`;
  const toPin = chosen.filter((m) => !m.pinned).length;
  const toUnpin = chosen.length - toPin;
  const o = state.overview;
  const free = o ? Math.max(o.pinLimit - o.pinned, 0) : 0;
  const reasons = [];
  $('pin-selected').textContent = toPin > 0 ? `Pin ${toPin}` : 'Pin selected';
  $('pin-selected').disabled = toPin === 0 || toPin > free;
  if (toPin === 0) reasons.push('Pin is off: every selected memory is pinned already.');
  else if (toPin > free)
    reasons.push(
      `Pin is off: pinning ${toPin} would pass the pin limit (${o.pinned} of ${o.pinLimit} pinned, ${free} free). Select fewer, or unpin some first.`,
    );
  $('unpin-selected').textContent = toUnpin > 0 ? `Unpin ${toUnpin}` : 'Unpin selected';
  $('unpin-selected').disabled = toUnpin === 0;
  if (toUnpin === 0) reasons.push('Unpin is off: none of the selected memories is pinned.');
  $('forget-selected').textContent = `Forget ${chosen.length}`;
  $('selection-why').textContent = reasons.join(' ');
  $('selection-why').hidden = reasons.length === 0;
}

function clearSelection() {
  state.selected.clear();
  for (const box of document.querySelectorAll('#memories .select input')) box.checked = false;
  selectionBar();
}

async function pinSelected(pinned) {
  const ids = [...state.selected.values()].filter((m) => m.pinned !== pinned).map((m) => m.id);
  await guarded(async () => {
    const changed = await api('api/pins', { method: 'POST', body: JSON.stringify({ ids, pinned }), missing: true });
    if (!changed) say('One of the selected memories is gone (forgotten, evicted or expired). Nothing was changed.');
    else if (pinned) say(`Pinned ${memoriesOf(changed.changed)}: never evicted, never expiring. Their usefulness is unchanged.`);
    else say(`Unpinned ${memoriesOf(changed.changed)}: they can be evicted again.`);
    clearSelection();
    await refreshAfterChange();
  });
}

async function forgetSelected() {
  const chosen = [...state.selected.values()];
  const kinds = [...new Set(chosen.map((m) => m.kind))].join(', ');
  const ask = `Forget ${memoriesOf(chosen.length)} (${kinds})? This cannot be undone.`;
  if (!(await confirmed(ask, `Forget ${chosen.length}`))) return;
  await guarded(async () => {
    const gone = await api('api/forget', { method: 'POST', body: JSON.stringify({ ids: chosen.map((m) => m.id) }) });
    say(`Forgot ${memoriesOf(gone.count)}.`);
    clearSelection();
    await refreshAfterChange();
  });
}

async function loadWriters() {
  const { writers } = await api('api/writers');
  for (const [field, label] of [
    ['agent', 'Any agent'],
    ['client', 'Any client'],
  ]) {
    const select = $(field);
    const current = select.value;
    const values = [...new Set(writers.map((w) => w[field]))].sort();
    const any = el('option', label);
    any.value = '';
    select.replaceChildren(
      any,
      ...values.map((v) => {
        const option = el('option', v);
        option.value = v;
        return option;
      }),
    );
    select.value = values.includes(current) ? current : '';
  }
}

async function loadMemories(append = false) {
  const params = listParams();
  if (append && state.cursor) params.set('cursor', state.cursor);
  const asked = ++lists;
  const page = await api(`api/memories?${params}`);
  if (asked !== lists) return;
  state.query = '';
  state.cursor = page.nextCursor ?? null;
  if (!append) state.total = page.total ?? 0;
  $('more-memories').hidden = !state.cursor;
  $('compare').hidden = true;
  render(page.memories, append);
  const shown = $('memories').children.length;
  const what = state.kind ? `${state.kind} memories` : 'memories';
  $('list-caption').textContent =
    state.total === 0 ? '' : `Showing ${shown} of ${state.total} ${what}${filtered(params) ? ' that match the filters' : ''}`;
  if (state.total > 0) return;
  if (filtered(params)) showEmpty('No memory matches these filters.', button('Clear the filters', clearFilters));
  else if (totalOf(state.overview) === 0)
    showEmpty(
      'Nothing remembered yet. Connect an agent, and what it remembers shows here.',
      button('How to connect', () => show('overview')),
    );
  else showEmpty(`No ${state.kind} memory yet.`);
}

function clearFilters() {
  for (const name of ['agent', 'client', 'pinned', 'origin']) $(name).value = '';
  $('conflicting').checked = false;
  guarded(() => loadMemories());
}

/** How many results a search shows at most. */
const SEARCH_LIMIT = 20;

async function search(query) {
  const params = new URLSearchParams({ q: query, limit: String(SEARCH_LIMIT) });
  if (state.kind) params.set('kinds', state.kind);
  const asked = ++lists;
  const found = await api(`api/search?${params}`);
  if (asked !== lists) return;
  state.query = query;
  state.cursor = null;
  $('more-memories').hidden = true;
  $('compare').hidden = true;
  render(found.memories, false);
  const caption = $('list-caption');
  caption.replaceChildren();
  if (found.memories.length === 0) {
    const box = el('p', 'Nothing found for “');
    box.append(userText('bdi', query), '”: none of your memories relates to it.');
    $('empty').replaceChildren(box);
    $('empty').hidden = false;
    return;
  }
  // "Best N of M": N shown, of the M memories searched (the kind chosen, or all).
  const searched = state.kind ? (ruleOf(state.kind)?.count ?? 0) : totalOf(state.overview);
  const what = state.kind ? `${state.kind} memories` : 'memories';
  caption.append(`Best ${found.memories.length} of ${searched} ${what} for “`, userText('bdi', query), '”, best first');
  if (found.memories.length < Math.min(SEARCH_LIMIT, searched)) caption.append('; the others relate too little');
}

/** Search as you type: a pause of `SEARCH_PAUSE_MS` after the last key asks; an empty box lists again. */
const SEARCH_PAUSE_MS = 300;
let typing;

function searchAsYouType() {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const query = $('q').value.trim();
    if (query === state.query) return;
    guarded(() => (query ? search(query) : loadMemories()));
  }, SEARCH_PAUSE_MS);
}

async function refreshAfterChange() {
  await loadOverview();
  if (view === 'memories') await (state.query ? search(state.query) : loadMemories());
  if (view === 'next') await loadNext();
}

/** Unpinning a memory of a kind with a time to live lets it expire: at once if it was last useful long ago. */
function expiresOnUnpin(m) {
  const ttl = ruleOf(m.kind)?.ttlSeconds;
  if (!m.pinned || ttl === null || ttl === undefined) return null;
  return Date.parse(m.lastUsefulAt) + ttl * 1000 <= Date.now()
    ? 'at once'
    : relative(new Date(Date.parse(m.lastUsefulAt) + ttl * 1000).toISOString());
}

async function setPinned(m, pinned) {
  const expiring = pinned ? null : expiresOnUnpin(m);
  if (expiring === 'at once') {
    const ask = `Unpin this ${m.kind} memory? It was last useful ${relative(m.lastUsefulAt)}, so unpinned it expires at once.`;
    if (!(await confirmed(ask, 'Unpin it'))) return;
  }
  await guarded(async () => {
    const changed = await api(`api/memories/${encodeURIComponent(m.id)}/pin`, {
      method: pinned ? 'PUT' : 'DELETE',
      missing: true,
    });
    if (!changed) {
      say('That memory is gone: forgotten, evicted or expired.');
    } else if (pinned) {
      say('Pinned: it is never evicted and never expires. Its usefulness is unchanged.');
    } else {
      say(expiring ? `Unpinned: it can be evicted again, and expires ${expiring}.` : 'Unpinned: it can be evicted again.');
    }
    await refreshAfterChange();
  });
}

async function forgetOne(m) {
  if (!(await confirmed(`Forget this ${m.kind} memory? “${m.content.slice(0, 200)}”`, 'Forget it'))) return;
  await guarded(async () => {
    await api(`api/memories/${encodeURIComponent(m.id)}`, { method: 'DELETE' });
    say('Forgotten.');
    await refreshAfterChange();
  });
}

async function forgetKind() {
  if (!(await confirmed(`Forget every ${state.kind} memory? This cannot be undone.`, `Forget all ${state.kind}`))) return;
  await guarded(async () => {
    await api(`api/memories?${new URLSearchParams({ kind: state.kind })}`, { method: 'DELETE' });
    say(`Forgot every ${state.kind} memory.`);
    await refreshAfterChange();
  });
}

async function forgetAll() {
  const ask = 'Forget everything this key’s memory holds, and its journal? This cannot be undone.';
  if (!(await confirmed(ask, 'Forget everything'))) return;
  await guarded(async () => {
    await api('api/memories?all=true', { method: 'DELETE' });
    say('Forgot everything.');
    await refreshAfterChange();
  });
}

// ---- Journal

/** The smallest of 1, 2, 5 × 10ⁿ at or above `n`: a scale with round ticks. */
function niceMax(n) {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((f) => f * power).find((v) => v >= n);
}

function periodsOf(series, range) {
  return series.map((p) => {
    const counts = Object.fromEntries(RULES.map((r) => [r, p[r] ?? 0]));
    const total = RULES.reduce((sum, r) => sum + counts[r], 0);
    const date = range === 'days' ? new Date(`${p.day}T00:00:00Z`) : new Date(p.hour);
    const long =
      range === 'days'
        ? date.toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short', month: 'short', day: 'numeric' })
        : `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`;
    const short =
      range === 'days'
        ? date.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' })
        : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    return { key: p.day ?? p.hour, counts, total, long, short };
  });
}

const periodText = (p) =>
  p.total === 0
    ? `${p.long}: nothing forgotten`
    : `${p.long}: ${p.total} forgotten — ${RULES.map((r) => `${p.counts[r]} by ${r}`).join(', ')}`;

/**
 * A chart's width in CSS pixels: the width it is drawn in, so that its 12 px labels render at 12 px
 * on a phone as on a desktop (a fixed viewBox scaled to 390 px made them about 6 px).
 */
const chartWidth = (box) => Math.max(280, Math.min(Math.round(box.clientWidth || 640), 1000));

/** Draws the shown view's charts again at the window's new width. */
function redraw() {
  if (view === 'journal' && state.series) drawChart(periodsOf(state.series, state.range), state.range);
  if (view === 'time' && lastPicture) drawPicture(lastPicture);
}

function drawChart(periods, range) {
  const W = chartWidth($('chart'));
  const H = W < 500 ? 200 : 220;
  const m = { left: 34, right: 8, top: 22, bottom: 26 };
  const plotW = W - m.left - m.right;
  const plotH = H - m.top - m.bottom;
  const step = plotW / Math.max(periods.length, 1);
  const top = niceMax(Math.max(0, ...periods.map((p) => p.total)));
  const y = (v) => m.top + plotH - (v / top) * plotH;
  const totals = Object.fromEntries(RULES.map((r) => [r, periods.reduce((sum, p) => sum + p.counts[r], 0)]));
  const span =
    range === 'days' ? `per day over the last ${periods.length} days` : `per hour over the last ${periods.length} hours`;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'group' });
  chart.setAttribute('aria-label', `Forgotten ${span}: ${RULES.map((r) => `${totals[r]} by ${r}`).join(', ')}`);
  for (const tick of [0, top / 2, top].filter((t) => Number.isInteger(t))) {
    chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: y(tick), y2: y(tick), class: 'grid-line' }));
    const label = svg('text', { x: m.left - 6, y: y(tick) + 3, 'text-anchor': 'end', 'aria-hidden': 'true' });
    label.textContent = String(tick);
    chart.append(label);
  }
  chart.append(svg('line', { x1: m.left, x2: m.left, y1: m.top, y2: m.top + plotH, class: 'axis' }));
  const unit = svg('text', { x: m.left - 28, y: 12, 'aria-hidden': 'true' });
  unit.textContent = range === 'days' ? 'lines per day' : 'lines per hour';
  chart.append(unit);
  chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: m.top + plotH, y2: m.top + plotH, class: 'axis' }));
  // As many period labels as fit, about 64 px apart, always the latest one.
  const every = Math.max(1, Math.ceil(periods.length / Math.max(2, Math.floor(plotW / 64))));
  const groups = periods.map((p, i) => {
    const x = m.left + i * step;
    const g = svg('g', { class: 'period', role: 'img', tabindex: '-1', 'aria-label': periodText(p) });
    g.dataset.key = p.key;
    g.append(svg('rect', { x, y: m.top, width: step, height: plotH, class: 'hit' }));
    let base = 0;
    for (const rule of RULES) {
      const n = p.counts[rule];
      if (n === 0) continue;
      const bar = svg('rect', {
        x: x + step * 0.15,
        y: y(base + n),
        width: Math.max(step * 0.7, 1),
        height: y(base) - y(base + n),
        class: `bar ${rule}`,
      });
      bar.dataset.rule = rule;
      bar.dataset.count = String(n);
      bar.dataset.day = p.key;
      base += n;
      g.append(bar);
    }
    const title = svg('title');
    title.textContent = periodText(p);
    g.append(title);
    if ((periods.length - 1 - i) % every === 0) {
      // The latest period's label ends at the chart's edge rather than running past it.
      const last = i === periods.length - 1;
      const label = svg('text', {
        x: last ? W - m.right : x + step / 2,
        y: H - 8,
        'text-anchor': last ? 'end' : 'middle',
        'aria-hidden': 'true',
      });
      label.textContent = p.short;
      chart.append(label);
    }
    const read = () => {
      $('chart-readout').textContent = periodText(p);
    };
    g.addEventListener('focus', read);
    g.addEventListener('mouseenter', read);
    return g;
  });
  chart.append(...groups);
  const start = [...periods.keys()].reverse().find((i) => periods[i].total > 0) ?? periods.length - 1;
  if (groups[start]) groups[start].setAttribute('tabindex', '0');
  chart.addEventListener('keydown', (event) => moveFocus(event, groups));
  $('chart').replaceChildren(chart);
  $('chart-readout').textContent = periods[start] ? periodText(periods[start]) : '';
  $('legend').replaceChildren(
    ...RULES.map((rule) => {
      const item = el('li');
      item.dataset.rule = rule;
      item.append(el('span', '', `swatch ${rule}`), `${rule}: ${totals[rule]} — ${RULE_WORDS[rule]}`);
      return item;
    }),
  );
}

/** Arrow keys, Home and End move between the chart's periods (one of them in the tab order). */
function moveFocus(event, groups) {
  const at = groups.indexOf(document.activeElement);
  if (at < 0) return;
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: groups.length - 1 }[event.key];
  if (to === undefined || to < 0 || to >= groups.length) return;
  event.preventDefault();
  groups[at].setAttribute('tabindex', '-1');
  groups[to].setAttribute('tabindex', '0');
  groups[to].focus();
}

/** What a journal row shows of a line: lines that show the same are one row. */
const shownAs = (l) => [Math.floor(Date.parse(l.at) / 60_000), l.kind, l.rule, duration(l.ageSeconds), l.recallCount].join('|');

/** Consecutive journal lines that read the same (same minute, kind, rule, age and recalls), as one row with how many. */
function grouped(lines) {
  const rows = [];
  for (const line of lines) {
    const last = rows.at(-1);
    if (last && shownAs(last.line) === shownAs(line)) {
      last.n += 1;
      last.earliest = line.at;
    } else rows.push({ line, n: 1, earliest: line.at });
  }
  return rows;
}

function cell(label, content, className) {
  const td = el('td', undefined, className);
  td.dataset.label = label;
  td.append(content);
  return td;
}

async function loadJournal(pageIndex = 0) {
  const series =
    state.range === 'days' ? (await api('api/journal/daily?days=30')).days : (await api('api/journal/hourly?hours=24')).hours;
  state.series = series;
  drawChart(periodsOf(series, state.range), state.range);
  const cursor = state.journal[pageIndex] ?? null;
  const page = await api(`api/journal${cursor ? `?${new URLSearchParams({ cursor })}` : ''}`);
  state.journal = state.journal.slice(0, pageIndex + 1);
  if (page.nextCursor) state.journal.push(page.nextCursor);
  state.journalPage = pageIndex;
  const rows = grouped(page.lines).map(({ line, n, earliest }) => {
    const row = el('tr');
    row.dataset.rule = line.rule;
    row.dataset.lines = String(n);
    const when = timeEl(line.at);
    if (earliest !== line.at) when.title = `${absolute(earliest)} to ${absolute(line.at)}`;
    row.append(
      cell('When', when),
      cell('Kind', line.kind),
      cell('Rule', line.rule),
      cell('Age', duration(line.ageSeconds)),
      cell('Recalls', String(line.recallCount)),
      cell('Lines', n > 1 ? `×${n}` : '1'),
    );
    return row;
  });
  if (rows.length === 0) {
    const empty = el('td', 'Nothing forgotten automatically yet.', 'wide');
    empty.colSpan = 6;
    rows.push(el('tr'));
    rows[0].append(empty);
  }
  $('journal').tBodies[0].replaceChildren(...rows);
  $('journal-next').disabled = !page.nextCursor;
  $('journal-first').disabled = pageIndex === 0;
}

function setRange(range) {
  state.range = range;
  for (const b of document.querySelectorAll('[data-range]')) b.setAttribute('aria-pressed', String(b.dataset.range === range));
  guarded(() => loadJournal(state.journalPage));
}

// ---- Memory over time: per kind, how many it held each day against its ceiling, and what went by which rule

const PICTURE_DAYS = 30;
const DAY_MS = 86_400_000;
/** Pages of 100 read at most for the picture, per source: past that it says it is partial. */
const PICTURE_PAGES = 20;
let lastPicture = null;

/** Pages of `path` newest first while `keep` holds for the last item read; whether it stopped short. */
async function newestWhile(path, field, keep) {
  const items = [];
  let cursor = null;
  for (let page = 0; page < PICTURE_PAGES; page += 1) {
    const params = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    if (field === 'memories') params.set('order', 'created');
    const answer = await api(`${path}?${params}`);
    items.push(...answer[field]);
    cursor = answer.nextCursor;
    const last = answer[field].at(-1);
    if (!cursor || !last || !keep(last)) return { items, partial: false };
  }
  return { items, partial: true };
}

/**
 * What each kind held at the end of each day: what it holds now, less what was made since, plus what
 * was forgotten since having been made by then (a journal line's age tells when its memory was made).
 */
function pictureOf(overview, memories, lines) {
  const now = Date.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days = Array.from({ length: PICTURE_DAYS }, (_, i) => today - (PICTURE_DAYS - 1 - i) * DAY_MS);
  return overview.kinds.map((k) => {
    const made = memories.filter((m) => m.kind === k.kind).map((m) => Date.parse(m.createdAt));
    const gone = lines
      .filter((l) => l.kind === k.kind)
      .map((l) => ({ at: Date.parse(l.at), made: Date.parse(l.at) - l.ageSeconds * 1000, rule: l.rule }));
    const series = days.map((start) => {
      const end = Math.min(start + DAY_MS, now);
      const held = Math.max(
        0,
        k.count - made.filter((t) => t > end).length + gone.filter((g) => g.made <= end && g.at > end).length,
      );
      const forgotten = Object.fromEntries(RULES.map((r) => [r, 0]));
      for (const g of gone) if (g.at >= start && g.at < start + DAY_MS) forgotten[g.rule] += 1;
      return { day: new Date(start).toISOString().slice(0, 10), held, forgotten };
    });
    return { kind: k.kind, ceiling: k.ceiling, count: k.count, series };
  });
}

function pictureText(k) {
  const first = k.series[0];
  const totals = RULES.map((r) => [r, k.series.reduce((n, d) => n + d.forgotten[r], 0)]).filter(([, n]) => n > 0);
  const forgotten = totals.reduce((n, [, c]) => n + c, 0);
  const went =
    forgotten === 0 ? 'nothing forgotten' : `${forgotten} forgotten: ${totals.map(([r, n]) => `${n} by ${r}`).join(', ')}`;
  const since = first
    ? new Date(`${first.day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' })
    : '';
  return `${k.kind}: ${k.count} of ${k.ceiling} now, ${first?.held ?? 0} at the end of ${since}; ${went}`;
}

/** One kind's picture: the line of what it held, its ceiling dashed, and below, what went each day by rule. */
function kindPicture(k, W, mostGone) {
  const H = 186;
  const gap = 22;
  const m = { left: 34, right: 10, top: 16, band: 40, bottom: 22 };
  const plotH = H - m.top - m.band - m.bottom - gap;
  const step = (W - m.left - m.right) / k.series.length;
  const top = niceMax(Math.max(k.ceiling, ...k.series.map((d) => d.held)));
  const y = (v) => m.top + plotH - (v / top) * plotH;
  const x = (i) => m.left + i * step + step / 2;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart picture', role: 'img', 'aria-label': pictureText(k) });
  for (const tick of [0, top]) {
    chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: y(tick), y2: y(tick), class: 'grid-line' }));
    const label = svg('text', { x: m.left - 6, y: y(tick) + 4, 'text-anchor': 'end' });
    label.textContent = String(tick);
    chart.append(label);
  }
  chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: y(k.ceiling), y2: y(k.ceiling), class: 'ceiling-line' }));
  const ceiling = svg('text', { x: W - m.right, y: y(k.ceiling) - 4, 'text-anchor': 'end' });
  ceiling.textContent = `ceiling ${k.ceiling}`;
  chart.append(ceiling);
  const points = k.series.map((d, i) => `${x(i).toFixed(1)},${y(d.held).toFixed(1)}`).join(' ');
  chart.append(svg('polyline', { points, class: 'held' }));
  const bandTop = m.top + plotH + gap;
  const barY = (v) => bandTop + m.band - (v / mostGone) * m.band;
  chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: bandTop + m.band, y2: bandTop + m.band, class: 'axis' }));
  const gone = svg('text', { x: m.left, y: bandTop - 2 });
  gone.textContent = `forgotten per day (bars up to ${mostGone})`;
  chart.append(gone);
  k.series.forEach((d, i) => {
    let base = 0;
    for (const rule of RULES) {
      const n = d.forgotten[rule];
      if (n === 0) continue;
      const bar = svg('rect', {
        x: x(i) - step * 0.35,
        y: barY(base + n),
        width: Math.max(step * 0.7, 1),
        height: barY(base) - barY(base + n),
        class: `bar ${rule}`,
      });
      bar.dataset.rule = rule;
      bar.dataset.count = String(n);
      base += n;
      chart.append(bar);
    }
  });
  const every = Math.max(1, Math.ceil(k.series.length / Math.max(2, Math.floor((W - m.left - m.right) / 64))));
  k.series.forEach((d, i) => {
    if ((k.series.length - 1 - i) % every !== 0) return;
    const last = i === k.series.length - 1;
    const label = svg('text', { x: last ? W - m.right : x(i), y: H - 6, 'text-anchor': last ? 'end' : 'middle' });
    label.textContent = new Date(`${d.day}T00:00:00Z`).toLocaleDateString(undefined, {
      timeZone: 'UTC',
      month: 'short',
      day: 'numeric',
    });
    chart.append(label);
  });
  for (const t of chart.querySelectorAll('text')) t.setAttribute('aria-hidden', 'true');
  return chart;
}

function drawPicture(picture) {
  const box = $('time');
  const W = chartWidth(box);
  const mostGone = niceMax(
    Math.max(1, ...picture.kinds.flatMap((k) => k.series.map((d) => RULES.reduce((n, r) => n + d.forgotten[r], 0)))),
  );
  box.replaceChildren(
    ...picture.kinds.map((k) => {
      const figure = el('figure', undefined, 'card kind-picture');
      figure.dataset.kind = k.kind;
      const caption = el('figcaption', pictureText(k));
      figure.append(el('h3', `${k.kind}: ${k.count} of ${k.ceiling}`), kindPicture(k, W - 34, mostGone), caption);
      return figure;
    }),
  );
  if (picture.partial)
    box.append(
      el('p', 'Drawn from the latest 2,000 memories and journal lines: older days may show fewer than there were.', 'hint'),
    );
  $('time-legend').replaceChildren(
    (() => {
      const item = el('li');
      item.append(el('span', '', 'swatch held'), 'memories held at the end of the day');
      return item;
    })(),
    (() => {
      const item = el('li');
      item.append(el('span', '', 'swatch ceiling-mark'), 'the kind’s ceiling');
      return item;
    })(),
    ...RULES.map((rule) => {
      const item = el('li');
      item.append(el('span', '', `swatch ${rule}`), `forgotten by ${rule}: ${RULE_WORDS[rule]}`);
      return item;
    }),
  );
}

async function loadPicture() {
  const start = Math.floor(Date.now() / DAY_MS) * DAY_MS - (PICTURE_DAYS - 1) * DAY_MS;
  const memories = await newestWhile('api/memories', 'memories', (m) => Date.parse(m.createdAt) >= start);
  const lines = await newestWhile('api/journal', 'lines', (l) => Date.parse(l.at) >= start);
  lastPicture = {
    kinds: pictureOf(state.overview, memories.items, lines.items),
    partial: memories.partial || lines.partial,
  };
  drawPicture(lastPicture);
}

// ---- Next to go

/** Why this memory goes where it does in line. */
function why(list, i, kind) {
  const m = list[i];
  const before = list[i - 1];
  if (m.supersededBy) return 'Superseded by a newer memory: superseded memories go first, then after their grace period.';
  if (!before) return `First to go: the least recently useful unpinned ${kind} memory.`;
  if (before.supersededBy) return `First current memory in line: the least recently useful unpinned ${kind} memory.`;
  if (before.lastUsefulAt === m.lastUsefulAt) return 'Last useful at the same instant as the one above: the tie goes by id.';
  return 'Goes after the one above: it was useful more recently.';
}

/** Whether Pin works here, in text above the lists: at the limit every Pin is off, and this says why and what to do. */
function nextPins() {
  const o = state.overview;
  const box = $('next-pins');
  if (!o) return box.replaceChildren();
  if (o.pinned < o.pinLimit) {
    box.className = 'notice';
    return box.replaceChildren(el('p', `${o.pinned} of ${o.pinLimit} pinned: Pin keeps a memory here from going.`));
  }
  box.className = 'notice error';
  const show = button('Show pinned memories', showPinned, 'small');
  box.replaceChildren(
    el(
      'p',
      `Pin is off: ${o.pinned} of ${o.pinLimit} memories are pinned, the pin limit. Unpin one to keep one of these instead.`,
    ),
    show,
  );
}

/** The memories list, pinned ones only: where a person unpins. */
function showPinned() {
  $('pinned').value = 'true';
  show('memories');
}

function nextItem(m, reason, when) {
  const item = el('li');
  item.dataset.id = m.id;
  item.append(...contentBlock(m));
  const meta = el('span', undefined, 'why');
  meta.append(...when, reason ? ` — ${reason}` : '');
  item.append(meta);
  const row = el('div', undefined, 'row actions');
  row.append(pinButton({ ...m, pinned: false }, 'next-pins'));
  item.append(row);
  return item;
}

async function loadNext() {
  const next = await api('api/next?limit=5');
  nextPins();
  if (next.kinds.every((k) => k.count === 0)) {
    $('next').replaceChildren(el('p', 'Nothing remembered yet, so nothing to lose.', 'empty'));
    return;
  }
  const blocks = next.kinds.map((k) => {
    const block = el('section', undefined, 'card');
    block.dataset.kind = k.kind;
    block.setAttribute('aria-label', `${k.kind}: ${k.count} of ${k.ceiling}`);
    block.append(el('h3', `${k.kind}: ${k.count} of ${k.ceiling}`));
    if (k.count === 0) {
      block.append(el('p', 'Nothing to lose yet.', 'hint'));
      return block;
    }
    block.append(el('h4', k.count >= k.ceiling ? 'Evicted by the next new memory, in order' : 'Would go first at the ceiling'));
    const evict = el('ol', undefined, 'evict');
    k.evictNext.forEach((m, i) => {
      evict.append(
        nextItem(m, why(k.evictNext, i, k.kind), ['last useful ', timeEl(m.lastUsefulAt), `, recalled ${m.recallCount}×`]),
      );
    });
    block.append(k.evictNext.length ? evict : el('p', 'Nothing unpinned: every memory of this kind is pinned.', 'hint'));
    if (k.expiringNext.length) {
      const expiring = el('ol', undefined, 'expiring');
      k.expiringNext.forEach((m, i) => {
        const before = k.expiringNext[i - 1];
        const reason = !before
          ? 'Expires first: last useful longest ago.'
          : before.expiresAt === m.expiresAt
            ? 'Expires at the same instant as the one above.'
            : '';
        expiring.append(nextItem(m, reason, ['expires ', timeEl(m.expiresAt)]));
      });
      block.append(el('h4', 'Expiring soonest'), expiring);
    }
    return block;
  });
  $('next').replaceChildren(...blocks);
}

// ---- Navigation and sign-in

const VIEWS = {
  overview: () => loadOverview().then(loadConnect),
  // What the search box holds is what the list shows: a search typed before stays a search.
  memories: () => loadWriters().then(() => ($('q').value.trim() ? search($('q').value.trim()) : loadMemories())),
  journal: () => loadJournal(0),
  time: () => loadOverview().then(loadPicture),
  next: loadNext,
};
let view = 'overview';

async function show(name) {
  view = name;
  for (const b of document.querySelectorAll('[data-view]')) {
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

function signOut(message, asError = false) {
  sessionStorage.removeItem(TOKEN_KEY);
  state = fresh();
  lastPicture = null;
  $('selection').hidden = true;
  for (const id of [
    'kinds',
    'engine',
    'memories',
    'chart',
    'legend',
    'next',
    'next-pins',
    'time',
    'time-legend',
    'compare-pair',
    'connect-text',
    'totals',
  ])
    $(id).replaceChildren();
  $('journal').tBodies[0].replaceChildren();
  Object.assign(importing, { name: '', text: null, stopping: true, written: 0, done: 0, total: 0 });
  $('import-file').value = '';
  importShows({});
  $('app').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  say('');
  showError('');
  if (asError) showError(message);
  else say(message);
  $('token').focus();
}

/** Signs in only when the key works: an unknown key stays on the form with a message of its own. */
async function signIn(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  say('');
  try {
    await loadOverview();
  } catch (error) {
    sessionStorage.removeItem(TOKEN_KEY);
    showError(error instanceof Error ? error.message : String(error));
    $('token').focus();
    return;
  }
  await enter();
}

async function enter() {
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('sign-out').hidden = false;
  await show('overview');
  $('h-overview').focus();
}

function wire() {
  $('sign-in').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('token');
    const token = input.value.trim();
    input.value = '';
    signIn(token);
  });
  $('sign-out').addEventListener('click', () => signOut('Signed out.'));
  for (const b of document.querySelectorAll('[data-view]')) b.addEventListener('click', () => show(b.dataset.view));
  $('kind').addEventListener('change', (event) => {
    state.kind = event.target.value;
    guarded(() => (state.query ? search(state.query) : loadMemories()));
  });
  for (const id of ['order', 'agent', 'client', 'pinned', 'conflicting'])
    $(id).addEventListener('change', () => guarded(() => loadMemories()));
  $('origin').addEventListener('change', () => guarded(() => loadMemories()));
  $('filters').addEventListener('submit', (event) => {
    event.preventDefault();
    guarded(() => loadMemories());
  });
  $('search').addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    const query = $('q').value.trim();
    guarded(() => (query ? search(query) : loadMemories()));
  });
  $('q').addEventListener('input', searchAsYouType);
  $('clear-search').addEventListener('click', () => {
    clearTimeout(typing);
    $('q').value = '';
    guarded(() => loadMemories());
  });
  $('pin-selected').addEventListener('click', () => pinSelected(true));
  $('unpin-selected').addEventListener('click', () => pinSelected(false));
  $('forget-selected').addEventListener('click', forgetSelected);
  $('clear-selection').addEventListener('click', clearSelection);
  let resizing;
  addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(redraw, 200);
  });
  $('more-memories').addEventListener('click', () => guarded(() => loadMemories(true)));
  $('compare-close').addEventListener('click', () => {
    $('compare').hidden = true;
  });
  $('forget-kind').addEventListener('click', forgetKind);
  $('forget-all').addEventListener('click', forgetAll);
  $('journal-next').addEventListener('click', () => guarded(() => loadJournal(state.journalPage + 1)));
  $('journal-first').addEventListener('click', () => guarded(() => loadJournal(0)));
  for (const b of document.querySelectorAll('[data-range]')) b.addEventListener('click', () => setRange(b.dataset.range));
  $('connect-client').addEventListener('change', showConnect);
  $('connect-key').addEventListener('change', showConnect);
  $('connect-copy').addEventListener('click', copyConnect);
  $('export').addEventListener('click', () => guarded(exportAll));
  $('import-file').addEventListener('change', () => importShows({}));
  $('import-start').addEventListener('click', () => guarded(startImport));
  $('import-stop').addEventListener('click', stopImport);
  $('import-resume').addEventListener('click', () => guarded(runImport));
}

wire();
if (sessionStorage.getItem(TOKEN_KEY)) {
  guarded(async () => {
    await loadOverview();
    await enter();
  });
} else signOut('');
