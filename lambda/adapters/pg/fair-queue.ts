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

/** Runs `work` with every statement it sends queued in `lane`. */
export function inLane<T>(lane: string, work: () => T): T {
  return lanes.run(lane, work);
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
  readonly starters: (() => void)[];
}

/**
 * Fair queuing over lanes by recent use: the waiting lane that has used the least turn time
 * lately (an exponentially decaying sum) goes next. A lane that floods keeps a large sum and
 * waits behind any lane that sends little; two floods alternate. A turn's time is measured from
 * its start to the moment the code it resumed waits again.
 */
export class FairQueue {
  private readonly lanes = new Map<string, Lane>();
  private turn: { lane: Lane; since: number } | undefined;
  /** The timer that ends the earliest rest while only resting lanes wait, and the instant it ends. */
  private wake: { timer: ReturnType<typeof setTimeout>; at: number } | undefined;

  /** `now` is the clock turns are charged by, in ms; tests pass one they move themselves. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Statements waiting in all lanes (for tests and diagnostics). */
  get queued(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.starters.length;
    return n;
  }

  /** Runs `work` (one statement) in its lane's turn. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.wait(currentLane());
    try {
      return await work();
    } finally {
      setImmediate(() => this.next());
    }
  }

  private wait(name: string): Promise<void> {
    const lane = this.laneOf(name);
    if (!this.turn && lane.restUntil <= this.now()) {
      this.turn = { lane, since: this.now() };
      return Promise.resolve();
    }
    return new Promise((start) => {
      lane.starters.push(start);
      if (!this.turn) this.restEnds();
    });
  }

  /** Whether a lane other than `lane` has had a turn within the last `USE_DECAY_MS`. */
  private othersActive(lane: Lane, now: number): boolean {
    for (const other of this.lanes.values()) if (other !== lane && now - other.at < USE_DECAY_MS) return true;
    return false;
  }

  /** Starts the next turn once the earliest rest of a waiting lane is over. */
  private restEnds(): void {
    let at = Number.POSITIVE_INFINITY;
    for (const lane of this.lanes.values()) if (lane.starters.length > 0) at = Math.min(at, lane.restUntil);
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
      const flooding = lane.name !== BACKGROUND_LANE && lane.used > FLOOD_USE_MS && this.othersActive(lane, now);
      if (flooding) lane.restUntil = now + FLOOD_REST * length;
    }
    let chosen: Lane | undefined;
    let least = Number.POSITIVE_INFINITY;
    for (const lane of this.lanes.values()) {
      if (lane.starters.length === 0 || lane.restUntil > now) continue;
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
  }

  private laneOf(name: string): Lane {
    let lane = this.lanes.get(name);
    if (!lane) {
      if (this.lanes.size >= MAX_LANES) this.forgetIdle();
      lane = { name, used: 0, at: this.now(), restUntil: 0, starters: [] };
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
