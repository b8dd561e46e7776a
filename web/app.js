// The memory page: plain DOM, same-origin fetches with the key as a bearer token, every memory
// text set through textContent. The key lives in sessionStorage only.

const TOKEN_KEY = 'naaba.key';
const RULES = ['ceiling', 'expiry', 'duplicate'];
const SVG = 'http://www.w3.org/2000/svg';
const REVOKED = 'Signed out: this key is unknown or revoked.';

const $ = (id) => document.getElementById(id);
const state = { kinds: [], kind: '', cursor: null, query: '', journal: [null], byId: new Map() };

class ApiError extends Error {}

/** Creates an element with text and classes; text always goes in as text, never markup. */
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function notify(message) {
  const notice = $('notice');
  notice.textContent = message ?? '';
  notice.hidden = !message;
}

async function api(path, method = 'GET') {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new ApiError('not signed in');
  const response = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    credentials: 'omit',
    cache: 'no-store',
  });
  const body = await response.json().catch(() => ({}));
  if (response.status === 401 || response.status === 403) {
    signOut(REVOKED);
    throw new ApiError(REVOKED);
  }
  if (!response.ok) throw new ApiError(body.error ?? body.message ?? `the server answered ${response.status}`);
  return body;
}

/** Runs a view's loader, showing its failure as text. */
async function guarded(load) {
  try {
    await load();
  } catch (error) {
    if (error instanceof ApiError && error.message === REVOKED) return;
    notify(error instanceof Error ? error.message : String(error));
  }
}

function when(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return 'never';
  const units = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ];
  for (const [unit, size] of units) if (seconds >= size) return `${Math.round(seconds / size)}${unit}`;
  return `${Math.round(seconds)}s`;
}

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

// ---- Overview

async function loadOverview() {
  const overview = await api('api/overview');
  state.kinds = overview.kinds;
  const grid = $('kinds');
  grid.replaceChildren();
  for (const k of overview.kinds) {
    const card = el('article', undefined, 'card');
    card.dataset.kind = k.kind;
    const count = el('span', k.count, 'count');
    const line = el('p');
    line.append(count, ` of ${k.ceiling}`);
    card.append(el('h3', k.kind), meter(k.count, k.ceiling, `${k.kind}: ${k.count} of ${k.ceiling}`), line);
    card.append(
      facts([
        ['expires after', k.ttlSeconds === null ? 'never' : duration(k.ttlSeconds)],
        ['pinned', k.pinned],
      ]),
    );
    grid.append(card);
  }
  const judge = overview.judge;
  const health = judge.lastCallOk === null ? 'not called yet' : judge.lastCallOk ? 'last call worked' : 'last call failed';
  const engine = $('engine');
  engine.replaceChildren();
  const pins = el('dd');
  pins.append(
    meter(overview.pinned, overview.pinLimit, `pinned ${overview.pinned} of ${overview.pinLimit}`),
    ` ${overview.pinned} of ${overview.pinLimit}`,
  );
  const judgeLine = el('dd', `${judge.name}: ${health}`, judge.lastCallOk === false ? 'bad' : '');
  judgeLine.id = 'judge';
  engine.append(el('dt', 'pinned'), pins, el('dt', 'judge'), judgeLine, el('dt', 'embedder'), el('dd', overview.embedder));
  fillKindSelect();
}

function fillKindSelect() {
  const select = $('kind');
  const current = state.kind || state.kinds[0]?.kind || '';
  select.replaceChildren(...state.kinds.map((k) => el('option', k.kind)));
  select.value = current;
  state.kind = current;
}

// ---- Memories

function memoryCard(m) {
  const item = el('li', undefined, 'card memory');
  item.dataset.id = m.id;
  item.append(el('p', m.content, 'content'));
  const provenance = [
    ['kind', m.kind],
    ['agent', m.agent],
    ['client', m.client],
    ['origin', m.origin ?? '—'],
    ['created', when(m.createdAt)],
    ['last useful', when(m.lastUsefulAt)],
    ['recalls', m.recallCount],
    ['restatements', m.restatements],
  ];
  if (m.pinned) provenance.push(['pinned', 'yes']);
  if (typeof m.score === 'number') provenance.push(['score', m.score.toFixed(3)]);
  item.append(facts(provenance));
  if (m.restatedBy?.length) {
    const by = el('ul', undefined, 'restated');
    for (const r of m.restatedBy) by.append(el('li', `restated by ${r.agent} (${r.client}) ${r.origin ?? ''} ${when(r.at)}`));
    item.append(by);
  }
  const actions = el('div', undefined, 'row');
  for (const id of m.conflicts ?? []) {
    const link = el('button', 'Conflicts with another memory: compare', 'link');
    link.type = 'button';
    link.addEventListener('click', () => compare(m, id));
    actions.append(link);
  }
  const forget = el('button', 'Forget', 'warn');
  forget.type = 'button';
  forget.setAttribute('aria-label', `Forget: ${m.content.slice(0, 60)}`);
  forget.addEventListener('click', () => forgetOne(m));
  actions.append(forget);
  item.append(actions);
  return item;
}

function compare(m, otherId) {
  const other = state.byId.get(otherId);
  const pane = $('compare');
  const close = el('button', 'Close comparison');
  close.type = 'button';
  close.addEventListener('click', () => {
    pane.hidden = true;
  });
  const pair = el('ul', undefined, 'memories pair');
  const right = other ? memoryCard(other) : el('li', `memory ${otherId} (not on this page; search to find it)`, 'card');
  pair.append(memoryCard(m), right);
  pane.replaceChildren(pair, close);
  pane.hidden = false;
  close.focus();
}

function showMemories(memories, append) {
  const list = $('memories');
  if (!append) list.replaceChildren();
  for (const m of memories) {
    state.byId.set(m.id, m);
    list.append(memoryCard(m));
  }
  $('list-caption').textContent = state.query
    ? `${list.children.length} found for “${state.query}”`
    : `${list.children.length} ${state.kind} memories shown`;
}

async function loadMemories(append = false) {
  state.query = '';
  const params = new URLSearchParams({ kind: state.kind });
  if (append && state.cursor) params.set('cursor', state.cursor);
  const page = await api(`api/memories?${params}`);
  state.cursor = page.nextCursor ?? null;
  $('more-memories').hidden = !state.cursor;
  $('compare').hidden = true;
  showMemories(page.memories, append);
}

async function search(query) {
  const params = new URLSearchParams({ q: query, limit: '20' });
  const found = await api(`api/search?${params}`);
  state.query = query;
  $('more-memories').hidden = true;
  showMemories(found.memories, false);
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

async function forgetOne(m) {
  if (!(await confirmed(`Forget this ${m.kind} memory? “${m.content.slice(0, 200)}”`, 'Forget it'))) return;
  await guarded(async () => {
    await api(`api/memories/${encodeURIComponent(m.id)}`, 'DELETE');
    notify('Forgotten.');
    await refresh();
  });
}

async function forgetKind() {
  if (!(await confirmed(`Forget every ${state.kind} memory? This cannot be undone.`, `Forget all ${state.kind}`))) return;
  await guarded(async () => {
    await api(`api/memories?${new URLSearchParams({ kind: state.kind })}`, 'DELETE');
    notify(`Forgot every ${state.kind} memory.`);
    await refresh();
  });
}

async function forgetAll() {
  if (
    !(await confirmed('Forget everything this key’s memory holds, and its journal? This cannot be undone.', 'Forget everything'))
  )
    return;
  await guarded(async () => {
    await api('api/memories?all=true', 'DELETE');
    notify('Forgot everything.');
    await refresh();
  });
}

// ---- Journal

function drawChart(days) {
  const width = 300;
  const height = 120;
  const step = width / Math.max(days.length, 1);
  const peak = Math.max(1, ...days.map((d) => RULES.reduce((sum, r) => sum + (d[r] ?? 0), 0)));
  const totals = Object.fromEntries(RULES.map((r) => [r, days.reduce((sum, d) => sum + (d[r] ?? 0), 0)]));
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height + 14}`,
    role: 'img',
    class: 'chart',
    preserveAspectRatio: 'xMinYMax meet',
  });
  chart.setAttribute(
    'aria-label',
    `Forgotten per day over ${days.length} days: ${RULES.map((r) => `${totals[r]} by ${r}`).join(', ')}`,
  );
  days.forEach((d, i) => {
    let top = height;
    for (const rule of RULES) {
      const n = d[rule] ?? 0;
      if (n === 0) continue;
      const h = (n / peak) * (height - 4);
      top -= h;
      const bar = svg('rect', { x: i * step + 1, y: top, width: Math.max(step - 2, 1), height: h, class: `bar ${rule}` });
      bar.dataset.day = d.day;
      bar.dataset.rule = rule;
      bar.dataset.count = String(n);
      const title = svg('title', {});
      title.textContent = `${d.day}: ${n} by ${rule}`;
      bar.append(title);
      chart.append(bar);
    }
  });
  chart.append(svg('line', { x1: 0, y1: height, x2: width, y2: height, class: 'axis' }));
  const first = svg('text', { x: 0, y: height + 12, class: 'tick' });
  first.textContent = days[0]?.day ?? '';
  const last = svg('text', { x: width, y: height + 12, class: 'tick end' });
  last.textContent = days.at(-1)?.day ?? '';
  chart.append(first, last);
  $('chart').replaceChildren(chart);
  $('legend').replaceChildren(
    ...RULES.map((rule) => {
      const item = el('li');
      item.dataset.rule = rule;
      item.append(el('span', '', `swatch ${rule}`), `${rule}: ${totals[rule]}`);
      return item;
    }),
  );
}

async function loadJournal(pageIndex = 0) {
  const daily = await api('api/journal/daily?days=30');
  drawChart(daily.days);
  const cursor = state.journal[pageIndex] ?? null;
  const page = await api(`api/journal${cursor ? `?${new URLSearchParams({ cursor })}` : ''}`);
  state.journal = state.journal.slice(0, pageIndex + 1);
  if (page.nextCursor) state.journal.push(page.nextCursor);
  state.journalPage = pageIndex;
  const rows = page.lines.map((l) => {
    const row = el('tr');
    row.dataset.rule = l.rule;
    row.append(
      el('td', when(l.at)),
      el('td', l.kind),
      el('td', l.rule),
      el('td', duration(l.ageSeconds)),
      el('td', l.recallCount),
    );
    return row;
  });
  if (rows.length === 0) {
    const empty = el('td', 'Nothing forgotten automatically yet.');
    empty.colSpan = 5;
    rows.push(el('tr'));
    rows[0].append(empty);
  }
  $('journal').tBodies[0].replaceChildren(...rows);
  $('journal-next').disabled = !page.nextCursor;
  $('journal-first').disabled = pageIndex === 0;
}

// ---- Next to go

async function loadNext() {
  const next = await api('api/next?limit=5');
  const blocks = next.kinds.map((k) => {
    const block = el('section', undefined, 'card');
    block.dataset.kind = k.kind;
    block.append(el('h3', `${k.kind}: ${k.count} of ${k.ceiling}`));
    const evict = el('ol', undefined, 'evict');
    for (const m of k.evictNext) {
      const item = el('li');
      item.dataset.id = m.id;
      item.append(
        el('span', m.content, 'content'),
        el('span', ` last useful ${when(m.lastUsefulAt)}, recalled ${m.recallCount}×`, 'hint'),
      );
      evict.append(item);
    }
    block.append(el('h4', k.count >= k.ceiling ? 'Evicted by the next new memory, in order' : 'Would go first at the ceiling'));
    block.append(k.evictNext.length ? evict : el('p', 'nothing unpinned', 'hint'));
    if (k.expiringNext.length) {
      const expiring = el('ol', undefined, 'expiring');
      for (const m of k.expiringNext) {
        const item = el('li');
        item.dataset.id = m.id;
        item.append(el('span', m.content, 'content'), el('span', ` expires ${when(m.expiresAt)}`, 'hint'));
        expiring.append(item);
      }
      block.append(el('h4', 'Expiring soonest'), expiring);
    }
    return block;
  });
  $('next').replaceChildren(...blocks);
}

// ---- Navigation and sign-in

const VIEWS = { overview: loadOverview, memories: () => loadMemories(), journal: () => loadJournal(0), next: loadNext };
let view = 'overview';

async function show(name) {
  view = name;
  for (const button of document.querySelectorAll('[data-view]')) {
    if (button.dataset.view === name) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const key of Object.keys(VIEWS)) $(`view-${key}`).hidden = key !== name;
  await guarded(async () => {
    if (state.kinds.length === 0 && name !== 'overview') await loadOverview();
    await VIEWS[name]();
  });
}

async function refresh() {
  await loadOverview();
  if (view === 'memories') await loadMemories();
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  Object.assign(state, { kinds: [], kind: '', cursor: null, query: '', journal: [null], byId: new Map() });
  for (const id of ['kinds', 'engine', 'memories', 'chart', 'legend', 'next', 'compare']) $(id).replaceChildren();
  $('journal').tBodies[0].replaceChildren();
  $('app').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  notify(message);
  $('token').focus();
}

async function signedIn() {
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('sign-out').hidden = false;
  await show('overview');
}

function wire() {
  $('sign-in').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('token');
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    input.value = '';
    notify('');
    signedIn();
  });
  $('sign-out').addEventListener('click', () => signOut('Signed out.'));
  for (const button of document.querySelectorAll('[data-view]'))
    button.addEventListener('click', () => show(button.dataset.view));
  $('kind').addEventListener('change', (event) => {
    state.kind = event.target.value;
    guarded(() => loadMemories());
  });
  $('search').addEventListener('submit', (event) => {
    event.preventDefault();
    const query = $('q').value.trim();
    guarded(() => (query ? search(query) : loadMemories()));
  });
  $('clear-search').addEventListener('click', () => {
    $('q').value = '';
    guarded(() => loadMemories());
  });
  $('more-memories').addEventListener('click', () => guarded(() => loadMemories(true)));
  $('forget-kind').addEventListener('click', forgetKind);
  $('forget-all').addEventListener('click', forgetAll);
  $('journal-next').addEventListener('click', () => guarded(() => loadJournal((state.journalPage ?? 0) + 1)));
  $('journal-first').addEventListener('click', () => guarded(() => loadJournal(0)));
}

wire();
if (sessionStorage.getItem(TOKEN_KEY)) signedIn();
else signOut('');
