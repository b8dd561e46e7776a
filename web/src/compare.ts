import type { MemoryAnswerJson, PageMemory } from '../../lambda/page/contract.js';
import { apiOrGone } from './api.js';
import { type CardActions, memoryCard } from './card.js';
import { $, button, el } from './dom.js';
import { forgetOne } from './actions.js';

/**
 * Two memories the judge said contradict, side by side. For a supersession pair the page says what
 * each way out does: the newer is right (nothing to do: the older goes after its grace period), or
 * the older is right (forget the correction, and the older is current again). Pin is refused on the
 * replaced one, with the server's reason: recall never returns it.
 */

const PLAIN = 'The judge said these two contradict each other. Keep the right one: forget the other, or pin the one to keep.';
const PAIR =
  'The newer memory replaced the older: recall returns only the newer, and the older is deleted after its grace period. ' +
  'If the newer is right, nothing needs doing. If the older is right, forget the correction: the older is current again.';

/** The older, the newer: who replaced whom, or undefined when the two are only in conflict. */
function supersession(a: PageMemory, b: PageMemory): { older: PageMemory; newer: PageMemory } | undefined {
  if (a.supersededBy === b.id) return { older: a, newer: b };
  if (b.supersededBy === a.id) return { older: b, newer: a };
  return undefined;
}

export async function compare(m: PageMemory, otherId: string, actions: CardActions): Promise<void> {
  // Read fresh by id, whether or not it is on this page: it may have changed or gone since.
  const other = (await apiOrGone<MemoryAnswerJson>(`api/memories/${encodeURIComponent(otherId)}`))?.memory;
  const pair = other ? supersession(m, other) : undefined;
  $('compare-hint').textContent = pair ? PAIR : PLAIN;
  const right = other
    ? memoryCard(other, { actions })
    : el('li', 'The other memory is gone: forgotten, evicted or expired. This one stands alone now.', 'card');
  $('compare-pair').replaceChildren(memoryCard(m, { actions }), right);
  const ways = $('compare-ways');
  ways.replaceChildren();
  if (pair) {
    const ask = `Forget the correction, so that the older memory is current again? “${pair.newer.content.slice(0, 200)}”`;
    const older = button('The older one is right: forget the correction', () => forgetOne(pair.newer, ask), 'warn');
    ways.append(older);
  }
  ways.hidden = !pair;
  $('compare').hidden = false;
  $('compare').focus();
}
