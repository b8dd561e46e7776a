import type { ConnectJson, DailyJson, HourlyJson, OverviewJson, PageMemory } from '../../lambda/page/contract.js';

/**
 * What the page holds between calls, in one place, and the few steps every section may ask of the
 * whole page (refresh, show a view, sign out): main.ts fills those in, so that no section imports
 * another's caller and the modules import no circle.
 */

export type ViewName = 'overview' | 'memories' | 'journal' | 'time' | 'next';
export type Range = 'days' | 'hours';

export interface PageState {
  overview: OverviewJson | null;
  /** The kind the memories list shows; '' for all. */
  kind: string;
  cursor: string | null;
  /** The search the list shows; '' when it lists. */
  query: string;
  total: number;
  /** Each journal page's cursor, the first null. */
  journal: (string | null)[];
  journalPage: number;
  range: Range;
  clients: ConnectJson['clients'];
  /** The memories ticked in the list, by id: only ones on screen. */
  selected: Map<string, PageMemory>;
  /** The last journal series drawn, to draw again at another width. */
  series: DailyJson['days'] | HourlyJson['hours'] | null;
  view: ViewName;
}

export const freshState = (): PageState => ({
  overview: null,
  kind: '',
  cursor: null,
  query: '',
  total: 0,
  journal: [null],
  journalPage: 0,
  range: 'days',
  clients: [],
  selected: new Map(),
  series: null,
  view: 'overview',
});

/** The page's state; replaced whole on sign-out. */
export let state: PageState = freshState();

export function resetState(): void {
  state = freshState();
}

/** Steps across sections, set by main.ts at start. */
export const page = {
  /** Reads again what a change may have changed: the overview and the shown view. */
  refresh: async (): Promise<void> => {},
  show: async (_view: ViewName): Promise<void> => {},
  signOut: (_message: string, _asError?: boolean): void => {},
};

export const totalOf = (overview: OverviewJson | null): number =>
  overview ? overview.kinds.reduce((n, k) => n + k.count, 0) : 0;
export const kindCount = (kind: string) => state.overview?.kinds.find((k) => k.kind === kind);
