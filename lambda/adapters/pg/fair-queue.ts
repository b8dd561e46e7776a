import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Fair turns on the one embedded database session (decision 0063). PGlite runs one statement at a
 * time on the process's only thread, first come first served, so one caller with forty statements
 * in flight made everyone else wait behind all forty. Here each statement joins the queue of its
 * lane — the caller it runs for, set per request by the local server — and the waiting lane that
 * has used the least time lately goes next. A caller that sends little is always ahead of one
 * that floods: its statements wait for the one in progress, not for the flood's queue, and the
 * statements of one of its requests follow each other.
 *
 * A turn lasts until the code resumed by its statement has run to its next wait: the next turn is
 * given on `setImmediate`, after the microtasks the answer set off (mapping rows, the embedding and
 * text analysis of the next step, serializing a reply). That CPU work, too, is then charged to the
 * lane that caused it instead of running in between everybody's statements.
 */

const lanes = new AsyncLocalStorage<string>();

/** Statements outside any request (the local sweeper, statistics, migrations) share this lane. */
export const BACKGROUND_LANE = 'background';

/**
 * How long after the last request ended the background lane still holds back (ms): a caller's
 * next call within this is the same burst. An agent thinks for seconds between its tool calls; a
 * client that calls in a loop keeps the background waiting until its bound below.
 */
export const REQUEST_LINGER_MS = 50;

/**
 * The share of the database the background still takes while requests come without a pause of
 * `REQUEST_LINGER_MS`: a background statement that has waited its lane's last turn's length over
 * this share, and at least `BACKGROUND_LEAST_WAIT_MS`, goes in the next moment no request is in
 * progress, however short. One that has waited `BACKGROUND_MOST_WAIT_MS` goes at once. A caller who
 * calls in a loop slows the sweeper to a turn every few seconds but never stops it, and the longer
 * the sweeper's statements, the rarer the turns that can make a call wait (decision 0161).
 */
export const BACKGROUND_SHARE = 0.01;

/**
 * The least a background statement waits for requests to pause (ms): a client calling in a loop,
 * 50 calls a second, then meets a background turn in fewer than one call in 250, under its p99.
 */
export const BACKGROUND_LEAST_WAIT_MS = 5_000;

/**
 * The most it waits (ms), even while a request is in progress: requests of many callers may
 * overlap without end, and the last turn may have been the VACUUM of a start, seconds long.
 */
export const BACKGROUND_MOST_WAIT_MS = 10_000;

/** When a statement got its turn, for a caller that watches (benches time a statement without its wait). */
export interface TurnWatch {
  startedAt?: number;
}

const watches = new AsyncLocalStorage<TurnWatch>();

/** Runs `work`, noting in `watch` (`performance.now()`) when the statement it sends gets its turn. */
export function watchTurn<T>(watch: TurnWatch, work: () => T): T {
  return watches.run(watch, work);
}

/**
 * Requests in progress: any work run in a lane other than the background's. The fair queue holds
 * background statements back while one runs and for `REQUEST_LINGER_MS` after the last ends
 * (decision 0161).
 */
export class RequestActivity {
  private inProgress = 0;
  private lastEnded = Number.NEGATIVE_INFINITY;
  private idle: (() => void)[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  begin(): void {
    this.inProgress += 1;
  }

  end(): void {
    this.inProgress = Math.max(0, this.inProgress - 1);
    this.lastEnded = this.now();
    if (this.inProgress === 0) for (const then of this.idle.splice(0)) then();
  }

  /** Calls `then` once, the moment no request is in progress (at once when none is). */
  whenIdle(then: () => void): void {
    if (this.inProgress === 0) then();
    else this.idle.push(then);
  }

  /** Whether a request is in progress now. */
  get busy(): boolean {
    return this.inProgress > 0;
  }

  /** From when background work may go: never while a request is in progress, else `REQUEST_LINGER_MS` after the last ended. */
  quietAt(): number {
    return this.inProgress > 0 ? Number.POSITIVE_INFINITY : this.lastEnded + REQUEST_LINGER_MS;
  }
}

/** The requests of this process, as `inLane` counts them. */
export const requestActivity = new RequestActivity();

/**
 * Runs `work` with every statement it sends queued in `lane`. In any lane but the background's,
 * `work` is a request: it counts as in progress until it (or the promise it returns) settles.
 */
export function inLane<T>(lane: string, work: () => T): T {
  if (lane === BACKGROUND_LANE) return lanes.run(lane, work);
  requestActivity.begin();
  let result: T;
  try {
    result = lanes.run(lane, work);
  } catch (error) {
    requestActivity.end();
    throw error;
  }
  if (!(result instanceof Promise)) {
    requestActivity.end();
    return result;
  }
  return result.finally(() => requestActivity.end()) as T;
}

/** The lane of the current call, as {@link inLane} set it. */
export const currentLane = (): string => lanes.getStore() ?? BACKGROUND_LANE;

/** Lane states kept at most; idle lanes whose recent use has decayed away go first. */
const MAX_LANES = 1_000;

/** How fast a lane's recent use is forgotten: halved about every 0.7 s (e-folding time 1 s). */
export const USE_DECAY_MS = 1_000;

/**
 * A request lane that has used more than this much turn time lately (half of what a lane busy all
 * the time reaches) is flooding: while another lane is active, it rests after each turn for
 * `FLOOD_REST` times the turn's length, so it has at most a quarter of the database. A statement
 * cannot be interrupted; the rest is what keeps the others' odds of arriving behind one low (issue 34).
 */
export const FLOOD_USE_MS = USE_DECAY_MS / 2;
export const FLOOD_REST = 3;

interface Lane {
  readonly name: string;
  /** Turn time used lately, in ms, decayed by `USE_DECAY_MS` since `at`. */
  used: number;
  at: number;
  /** Until when (the queue's clock) a flooding lane rests: it starts no turn before. */
  restUntil: number;
  /** Since when its first waiting statement has waited (the queue's clock): the background's bound counts from it. */
  waitingSince: number;
  /** How long its last turn lasted (ms): the background's bound scales with it. */
  lastTurn: number;
  readonly starters: (() => void)[];
}

/**
 * Fair queuing over lanes by recent use: the waiting lane that has used the least turn time
 * lately (an exponentially decaying sum) goes next. A lane that floods keeps a large sum and
 * waits behind any lane that sends little; two floods alternate. A turn's time is measured from
 * its start to the moment the code it resumed waits again.
 *
 * The background lane (the sweeper, statistics) starts no turn while a request is in progress or
 * within `REQUEST_LINGER_MS` of the last one, unless it has waited its bound (`BACKGROUND_SHARE`): a
 * statement cannot be interrupted, and one started between two statements of a request made that
 * request wait for it (decision 0161). A request then waits for at most the one background
 * statement in progress when it arrived.
 */
export class FairQueue {
  private readonly lanes = new Map<string, Lane>();
  private turn: { lane: Lane; since: number } | undefined;
  /** The timer that ends the earliest rest while only resting lanes wait, and the instant it ends. */
  private wake: { timer: ReturnType<typeof setTimeout>; at: number } | undefined;
  /** Whether the queue waits to hear that no request is in progress (a held background statement may go then). */
  private awaitingIdle = false;

  /**
   * `now` is the clock turns are charged by, in ms, and `requests` the requests the background
   * gives way to; tests pass ones they move themselves.
   */
  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly requests: RequestActivity = requestActivity,
  ) {}

  /** Statements waiting in all lanes (for tests and diagnostics). */
  get queued(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.starters.length;
    return n;
  }

  /** Runs `work` (one statement) in its lane's turn. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.wait(currentLane());
    const watch = watches.getStore();
    if (watch) watch.startedAt = performance.now();
    try {
      return await work();
    } finally {
      setImmediate(() => this.next());
    }
  }

  private wait(name: string): Promise<void> {
    const lane = this.laneOf(name);
    const now = this.now();
    if (lane.starters.length === 0) lane.waitingSince = now;
    if (!this.turn && lane.starters.length === 0 && this.readyAt(lane) <= now) {
      this.turn = { lane, since: now };
      return Promise.resolve();
    }
    return new Promise((start) => {
      lane.starters.push(start);
      if (!this.turn) this.restEnds();
    });
  }

  /**
   * Whether a request lane other than `lane` has had a turn within the last `USE_DECAY_MS`. The
   * background is not one: it gives way by itself, and counting it made a caller calling in a loop
   * rest after every statement for a second after each sweep statement (decision 0161).
   */
  private othersActive(lane: Lane, now: number): boolean {
    for (const other of this.lanes.values())
      if (other !== lane && other.name !== BACKGROUND_LANE && now - other.at < USE_DECAY_MS) return true;
    return false;
  }

  /**
   * From when a lane may start a turn (the queue's clock): a flooding lane after its rest; the
   * background once requests have paused, or once it has waited its bound.
   */
  private readyAt(lane: Lane): number {
    if (lane.name !== BACKGROUND_LANE) return lane.restUntil;
    // Past its bound it goes in the next pause between requests, however short; past the longest, at once.
    const bound = Math.min(BACKGROUND_MOST_WAIT_MS, Math.max(BACKGROUND_LEAST_WAIT_MS, lane.lastTurn / BACKGROUND_SHARE));
    const at = this.requests.busy ? BACKGROUND_MOST_WAIT_MS : bound;
    return Math.max(lane.restUntil, Math.min(this.requests.quietAt(), lane.waitingSince + at));
  }

  /**
   * Starts the next turn once the earliest rest of a waiting lane is over, or the background's
   * hold: the queue looks again the moment no request is in progress, and every
   * `REQUEST_LINGER_MS` while the background waits.
   */
  private restEnds(): void {
    let at = Number.POSITIVE_INFINITY;
    for (const lane of this.lanes.values()) {
      if (lane.starters.length === 0) continue;
      at = Math.min(at, this.readyAt(lane));
      if (lane.name !== BACKGROUND_LANE) continue;
      at = Math.min(at, this.now() + REQUEST_LINGER_MS);
      if (this.requests.busy && !this.awaitingIdle) {
        this.awaitingIdle = true;
        this.requests.whenIdle(() => {
          this.awaitingIdle = false;
          if (!this.turn) this.next();
        });
      }
    }
    if (!Number.isFinite(at) || (this.wake && this.wake.at <= at)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(
      () => {
        this.wake = undefined;
        // The rest is over when the timer says so, whatever the queue's clock reads.
        for (const lane of this.lanes.values()) if (lane.restUntil <= at) lane.restUntil = 0;
        if (!this.turn) this.next();
      },
      Math.max(0, at - this.now()),
    );
    timer.unref?.();
    this.wake = { timer, at };
  }

  /** Charges the turn that ended to its lane, then starts the waiting lane that has used least lately. */
  private next(): void {
    const now = this.now();
    if (this.turn) {
      const lane = this.turn.lane;
      const length = now - this.turn.since;
      lane.used = decayed(lane, now) + length;
      lane.at = now;
      lane.lastTurn = length;
      const flooding = lane.name !== BACKGROUND_LANE && lane.used > FLOOD_USE_MS && this.othersActive(lane, now);
      if (flooding) lane.restUntil = now + FLOOD_REST * length;
    }
    let chosen: Lane | undefined;
    let least = Number.POSITIVE_INFINITY;
    for (const lane of this.lanes.values()) {
      if (lane.starters.length === 0 || this.readyAt(lane) > now) continue;
      const used = decayed(lane, now);
      if (used < least) [chosen, least] = [lane, used];
    }
    if (!chosen) {
      this.turn = undefined;
      this.restEnds();
      return;
    }
    this.turn = { lane: chosen, since: now };
    chosen.starters.shift()?.();
    // The lane's next statement waits from now: the background's bound is per turn.
    chosen.waitingSince = now;
  }

  private laneOf(name: string): Lane {
    let lane = this.lanes.get(name);
    if (!lane) {
      if (this.lanes.size >= MAX_LANES) this.forgetIdle();
      lane = { name, used: 0, at: this.now(), restUntil: 0, waitingSince: this.now(), lastTurn: 0, starters: [] };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** Drops lanes with nothing waiting whose recent use has decayed below a microsecond. */
  private forgetIdle(): void {
    const now = this.now();
    for (const [name, lane] of this.lanes) {
      if (lane.starters.length === 0 && lane !== this.turn?.lane && decayed(lane, now) < 0.001 && lane.restUntil <= now)
        this.lanes.delete(name);
    }
  }
}

/** A lane's recent use as of `now`. */
const decayed = (lane: Lane, now: number) => lane.used * Math.exp(-(now - lane.at) / USE_DECAY_MS);
