import { writeSync } from 'node:fs';

/**
 * Buffered, ordered writes of log lines to a file descriptor (stderr by default).
 *
 * A log call only appends its line to memory; the lines of a short interval go out together in
 * one `write(2)`, so a busy server pays one system call per interval instead of one per line
 * (the per-line synchronous write was most of what `MCP_LOG_FORMAT=json` cost). Nothing is
 * lost on the way out: the rest is written synchronously on `exit`, which Node also emits for
 * `process.exit()`, an uncaught exception and an unhandled rejection (before it prints the
 * error), so the lines come before the stack trace.
 *
 * A reader that falls behind (a full pipe: `EAGAIN`) never makes the buffer grow without bound:
 * past `maxBuffered` characters new lines are dropped and counted, and one
 * `N log lines dropped` line takes their place once the reader catches up. The process never
 * blocks on its logs, except at exit for up to `exitTimeoutMs`.
 */
interface LogSinkOptions {
  /** Default 2 (stderr). */
  fd?: number;
  /** Most characters held while the reader is behind; later lines are dropped and counted. Default 1 MiB. */
  maxBuffered?: number;
  /** How long a line may wait for the lines after it before the batch is written. Default 10 ms. */
  flushIntervalMs?: number;
  /** At exit, how long to keep retrying a full pipe before giving up. Default 5 s. */
  exitTimeoutMs?: number;
  /** The line that stands for `count` dropped lines. */
  dropNotice?: (count: number) => string;
}

const DEFAULT_MAX_BUFFERED = 1024 * 1024;
const DEFAULT_FLUSH_INTERVAL_MS = 10;
const DEFAULT_EXIT_TIMEOUT_MS = 5_000;
/** Written at once when this much is waiting, instead of waiting for the interval. */
const EAGER_FLUSH = 64 * 1024;
/** Largest single write, so a large backlog is not copied into one huge Buffer. */
const MAX_WRITE = 1024 * 1024;

class LogSink {
  readonly #fd: number;
  readonly #maxBuffered: number;
  readonly #intervalMs: number;
  readonly #exitTimeoutMs: number;
  readonly #dropNotice: (count: number) => string;
  /** Lines not yet handed to the kernel, oldest first. */
  #lines: string[] = [];
  /** The unwritten tail of a write the kernel took only part of; goes out before `#lines`. */
  #partial: Buffer | undefined;
  #buffered = 0;
  #droppedSinceNotice = 0;
  #droppedTotal = 0;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  /** The last write found the pipe full; a retry timer is set. */
  #blocked = false;
  /** The descriptor failed for good (EPIPE, EBADF...): nobody can read what we would write. */
  #broken = false;
  /** Set by the exit flush: from then on each line is written at once, until this time at most. */
  #exitDeadline: number | undefined;

  constructor(options: LogSinkOptions = {}) {
    this.#fd = options.fd ?? 2;
    this.#maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.#intervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.#exitTimeoutMs = options.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS;
    this.#dropNotice = options.dropNotice ?? ((count) => `${count} log lines dropped\n`);
  }

  /** Characters waiting to be written. */
  get buffered(): number {
    return this.#buffered + (this.#partial?.length ?? 0);
  }

  /** Lines dropped so far because the reader was behind. */
  get dropped(): number {
    return this.#droppedTotal;
  }

  /** Queues one line (with its newline). Never blocks, never throws. */
  write(line: string): void {
    if (this.#broken) return;
    if (this.buffered + line.length > this.#maxBuffered) {
      this.#droppedSinceNotice++;
      this.#droppedTotal++;
      this.#schedule();
      return;
    }
    // The count of the lines dropped before this one goes first, where they would have been.
    this.#noteDrops(true);
    this.#lines.push(line);
    this.#buffered += line.length;
    // Lines from exit handlers that run after the exit flush, within its time.
    if (this.#exitDeadline !== undefined) this.flushSync(Math.max(0, this.#exitDeadline - Date.now()));
    else this.#schedule();
  }

  /**
   * Writes everything now, synchronously; on a full pipe retries (sleeping 1 ms between tries)
   * for up to `timeoutMs`. For the exit path; elsewhere the batches go out by themselves.
   */
  flushSync(timeoutMs = this.#exitTimeoutMs): boolean {
    this.#cancel();
    this.#blocked = false;
    this.#noteDrops(true);
    const deadline = Date.now() + timeoutMs;
    while (!this.#broken && this.#writeSome() === 'again') {
      if (Date.now() >= deadline) return false;
      sleep(1);
    }
    return !this.#broken;
  }

  /**
   * The exit flush: writes everything, and from then on writes each line at once. True when all
   * was written (the reader is alive).
   */
  exit(): boolean {
    this.#exitDeadline = Date.now() + this.#exitTimeoutMs;
    return this.flushSync();
  }

  #noteDrops(force = false): void {
    if (this.#droppedSinceNotice === 0) return;
    const notice = this.#dropNotice(this.#droppedSinceNotice);
    // Forced, the notice may go past the bound by its own length, once per run of drops.
    if (!force && this.buffered + notice.length > this.#maxBuffered) return;
    this.#droppedSinceNotice = 0;
    this.#lines.push(notice);
    this.#buffered += notice.length;
  }

  #schedule(): void {
    // While the pipe is full only the retry timer writes: no failing write(2) per line.
    if (this.#immediate || this.#blocked) return;
    if (this.buffered >= EAGER_FLUSH || this.#intervalMs <= 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#immediate = setImmediate(() => this.#flush());
      return;
    }
    if (this.#timer) return;
    // Unreferenced: a pending batch must not keep an idle process alive; `exit` writes it.
    this.#timer = setTimeout(() => this.#flush(), this.#intervalMs);
    this.#timer.unref();
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  #flush(): void {
    this.#timer = undefined;
    this.#immediate = undefined;
    this.#blocked = this.#writeSome() === 'again';
    if (this.#blocked) {
      // A full pipe: try again after the interval (at least 1 ms), not in a busy loop.
      this.#timer = setTimeout(() => this.#flush(), Math.max(this.#intervalMs, 1));
      this.#timer.unref();
      return;
    }
    // Room again: the count of what was dropped goes out with the next batch.
    this.#noteDrops();
    if (this.buffered > 0) this.#schedule();
  }

  /** Hands what is buffered to the kernel until it is all written ('done') or the pipe is full ('again'). */
  #writeSome(): 'done' | 'again' {
    for (;;) {
      if (!this.#partial) {
        if (this.#lines.length === 0) return 'done';
        this.#partial = Buffer.from(this.#take(), 'utf8');
      }
      const chunk = this.#partial;
      let written: number;
      try {
        written = writeSync(this.#fd, chunk, 0, chunk.length);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 'again';
        // EPIPE (the reader is gone), EBADF...: nothing more can be written; stop trying.
        this.#broken = true;
        this.#lines = [];
        this.#partial = undefined;
        this.#buffered = 0;
        this.#cancel();
        return 'done';
      }
      this.#partial = written < chunk.length ? chunk.subarray(written) : undefined;
      if (this.#partial) return 'again';
    }
  }

  /** Removes the oldest lines, up to MAX_WRITE characters (at least one line), joined. */
  #take(): string {
    let count = 0;
    let length = 0;
    while (
      count < this.#lines.length &&
      (count === 0 || length + (this.#lines[count] as string).length <= MAX_WRITE)
    ) {
      length += (this.#lines[count] as string).length;
      count++;
    }
    const text = count === this.#lines.length ? this.#lines.join('') : this.#lines.slice(0, count).join('');
    this.#lines = count === this.#lines.length ? [] : this.#lines.slice(count);
    this.#buffered -= length;
    return text;
  }
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/** Makes a stream's descriptor blocking, where Node's handle offers it (pipes, sockets, TTYs). */
function setBlocking(stream: NodeJS.WriteStream): void {
  const handle = (stream as unknown as { _handle?: { setBlocking?: (blocking: boolean) => number } })._handle;
  handle?.setBlocking?.(true);
}

let stderrSink: LogSink | undefined;

/**
 * The process's one sink for stderr, shared by every logger that writes there (one buffer, so
 * lines keep their order). Created on first use; flushed on `exit`.
 */
export function stderrLogSink(dropNotice?: (count: number) => string): LogSink {
  if (stderrSink) return stderrSink;
  // On a pipe or socket (Docker, systemd, a supervisor), creating Node's stderr stream puts the
  // descriptor in non-blocking mode, so a reader that falls behind shows as EAGAIN (buffer, then
  // drop) rather than stalling the event loop in write(2).
  void process.stderr;
  const sink = new LogSink(dropNotice ? { dropNotice } : {});
  process.on('exit', () => {
    // Node prints an uncaught exception's report after the exit handlers, with a plain write(2):
    // on a non-blocking pipe still full of our lines it would be lost (EAGAIN). The reader has
    // just taken everything we had, so it is alive: let that last write wait for it.
    if (sink.exit()) setBlocking(process.stderr);
  });
  stderrSink = sink;
  return sink;
}
