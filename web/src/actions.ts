import type { ForgetJson, PageMemory, PinJson, PinsJson } from '../../lambda/page/contract.js';
import { api, apiOrGone, confirmed, guarded, query, say } from './api.js';
import { memoriesOf } from './dom.js';
import { clearSelection } from './selection.js';
import { page, state } from './state.js';
import { relative } from './time.js';

/** Pin, unpin and forget: one memory, the selection, a kind or everything. What each does, the server said. */

export async function setPinned(m: PageMemory, pinned: boolean): Promise<void> {
  const expiring = pinned ? null : m.outlook.expiresIfUnpinned;
  if (!pinned && m.outlook.unpinExpiresAtOnce) {
    const ask = `Unpin this ${m.kind} memory? It was last useful ${relative(m.lastUsefulAt)}, so unpinned it expires at once.`;
    if (!(await confirmed(ask, 'Unpin it'))) return;
  }
  await guarded(async () => {
    const changed = await apiOrGone<PinJson>(`api/memories/${encodeURIComponent(m.id)}/pin`, {
      method: pinned ? 'PUT' : 'DELETE',
    });
    if (!changed) say('That memory is gone: forgotten, evicted or expired.');
    else if (pinned) say('Pinned: it is never evicted and never expires. Its usefulness is unchanged.');
    else if (!expiring) say('Unpinned: it can be evicted again.');
    else say(`Unpinned: it can be evicted again, and expires ${m.outlook.unpinExpiresAtOnce ? 'at once' : relative(expiring)}.`);
    await page.refresh();
  });
}

/** Pins by id from a list that is not the memories list (next to go): what is shown there is not a whole memory. */
export async function pinById(id: string): Promise<void> {
  await guarded(async () => {
    const changed = await apiOrGone<PinJson>(`api/memories/${encodeURIComponent(id)}/pin`, { method: 'PUT' });
    say(
      changed
        ? 'Pinned: it is never evicted and never expires. Its usefulness is unchanged.'
        : 'That memory is gone: forgotten, evicted or expired.',
    );
    await page.refresh();
  });
}

export async function forgetOne(
  m: PageMemory,
  ask = `Forget this ${m.kind} memory? “${m.content.slice(0, 200)}”`,
): Promise<void> {
  if (!(await confirmed(ask, 'Forget it'))) return;
  await guarded(async () => {
    await api<ForgetJson>(`api/memories/${encodeURIComponent(m.id)}`, { method: 'DELETE' });
    say('Forgotten.');
    await page.refresh();
  });
}

export async function forgetKind(): Promise<void> {
  if (!(await confirmed(`Forget every ${state.kind} memory? This cannot be undone.`, `Forget all ${state.kind}`))) return;
  await guarded(async () => {
    await api<ForgetJson>(`api/memories?${query({ kind: state.kind })}`, { method: 'DELETE' });
    say(`Forgot every ${state.kind} memory.`);
    await page.refresh();
  });
}

export async function forgetAll(): Promise<void> {
  const ask = 'Forget everything this key’s memory holds, and its journal? This cannot be undone.';
  if (!(await confirmed(ask, 'Forget everything'))) return;
  await guarded(async () => {
    await api<ForgetJson>('api/memories?all=true', { method: 'DELETE' });
    say('Forgot everything.');
    await page.refresh();
  });
}

export async function pinSelected(pinned: boolean): Promise<void> {
  const ids = [...state.selected.values()].filter((m) => m.pinned !== pinned).map((m) => m.id);
  await guarded(async () => {
    const changed = await apiOrGone<PinsJson>('api/pins', { method: 'POST', body: JSON.stringify({ ids, pinned }) });
    if (!changed) say('One of the selected memories is gone (forgotten, evicted or expired). Nothing was changed.');
    else if (pinned) say(`Pinned ${memoriesOf(changed.changed)}: never evicted, never expiring. Their usefulness is unchanged.`);
    else say(`Unpinned ${memoriesOf(changed.changed)}: they can be evicted again.`);
    clearSelection();
    await page.refresh();
  });
}

export async function forgetSelected(): Promise<void> {
  const chosen = [...state.selected.values()];
  const kinds = [...new Set(chosen.map((m) => m.kind))].join(', ');
  const ask = `Forget ${memoriesOf(chosen.length)} (${kinds})? This cannot be undone.`;
  if (!(await confirmed(ask, `Forget ${chosen.length}`))) return;
  await guarded(async () => {
    const gone = await api<ForgetJson>('api/forget', { method: 'POST', body: JSON.stringify({ ids: chosen.map((m) => m.id) }) });
    say(`Forgot ${memoriesOf(gone.count)}.`);
    clearSelection();
    await page.refresh();
  });
}
