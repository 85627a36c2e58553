/**
 * A sliding-window limiter: at most `requests` requests in any `windowMs`. Callers queue in order
 * instead of sending a burst Basecamp would answer with 429s.
 *
 * A request holds its slot while in flight and is dated by when its answer arrived, not when it
 * left: Basecamp counts a request when it arrives, which is between the two, so counting this way
 * can never see fewer requests in a window than the server does, whatever the latency.
 * `pause` holds everyone back after a 429 anyway (for the `Retry-After`).
 */
export class SlidingWindowLimiter {
  readonly #finished: number[] = [];
  #inFlight = 0;
  readonly #waiting: { resolve: (release: () => void) => void; reject: (reason: unknown) => void }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = 0;
  #pausedUntil = 0;

  constructor(
    readonly requests: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Resolves with a `release` to call when the answer arrives (or the request failed); rejects
   * with the signal's reason when it aborts while queued.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#waiting.length === 0 && this.#delay() === 0) return Promise.resolve(this.#take());
    return new Promise<() => void>((resolve, reject) => {
      const entry = { resolve, reject };
      this.#waiting.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      this.#schedule();
    });
  }

  /** Holds every request back for `ms` (after a 429). */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.now() + ms);
    this.#schedule();
  }

  /** Requests queued right now. */
  get queued(): number {
    return this.#waiting.length;
  }

  #take(): () => void {
    this.#inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
      this.#finished.push(this.now());
      this.#drain();
    };
  }

  /** Milliseconds until the next request may start; Infinity while every slot is in flight. */
  #delay(): number {
    const now = this.now();
    while (this.#finished.length > 0 && (this.#finished[0] ?? 0) <= now - this.windowMs)
      this.#finished.shift();
    const paused = Math.max(0, this.#pausedUntil - now);
    if (this.#inFlight + this.#finished.length < this.requests) return paused;
    if (this.#finished.length === 0) return Number.POSITIVE_INFINITY;
    return Math.max(paused, (this.#finished[0] ?? now) + this.windowMs - now);
  }

  #schedule(): void {
    if (this.#waiting.length === 0) return;
    const delay = this.#delay();
    // Every slot in flight: a release will drain the queue.
    if (delay === Number.POSITIVE_INFINITY) return;
    const at = this.now() + delay;
    if (this.#timer !== undefined) {
      if (this.#timerAt <= at) return;
      clearTimeout(this.#timer);
    }
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#drain();
    }, delay);
  }

  #drain(): void {
    while (this.#waiting.length > 0 && this.#delay() === 0) {
      this.#waiting.shift()?.resolve(this.#take());
    }
    this.#schedule();
  }
}
