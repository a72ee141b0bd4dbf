/**
 * `message_matches` patterns judged off the server's thread. The loader, told to defer (load/
 * regex-safety.ts), stops at a pattern it has no verdict for; the workspace hands the patterns
 * here, a worker thread runs recheck on them one at a time, and each verdict is recorded in
 * this thread before the project is loaded again. Hover and the other requests are answered
 * from the last check meanwhile. Only the patterns the latest check of a project still needs
 * are judged: a pattern typed one character at a time leaves its prefixes behind, and the
 * worker checking one of them is stopped for the pattern that replaced it.
 */
import { Worker } from "node:worker_threads";
import { deferPatternChecks, judged, judgePattern } from "../load/regex-safety.js";

interface Waiting {
  pattern: string;
  done: Promise<void>;
  settle: () => void;
}

export class PatternJudge {
  private worker: Worker | undefined;
  /** The pattern the worker is checking now. */
  private running: Waiting | undefined;
  private readonly queue: Waiting[] = [];
  private readonly byPattern = new Map<string, Waiting>();
  /** What each project's latest load needs judged. */
  private readonly wanted = new Map<string, ReadonlySet<string>>();
  /** The worker thread could not run: patterns are judged on this thread. */
  private broken = false;

  constructor(private readonly log: (message: string) => void) {
    deferPatternChecks();
  }

  /** Resolves once every pattern is judged, or no longer needed by `project`'s latest load (then the caller loads again, and finds out). */
  judge(project: string, patterns: readonly string[]): Promise<void> {
    this.wanted.set(project, new Set(patterns));
    // A pattern no project needs any more is not judged: dropped from the queue, or its check stopped.
    for (const waiting of [...this.queue]) if (!this.isWanted(waiting.pattern)) this.finish(waiting);
    if (this.running && !this.isWanted(this.running.pattern)) this.restart();
    const done = patterns.map((pattern) => (this.byPattern.get(pattern) ?? this.enqueue(pattern)).done);
    this.next();
    return Promise.all(done).then(() => undefined);
  }

  private isWanted(pattern: string): boolean {
    for (const patterns of this.wanted.values()) if (patterns.has(pattern)) return true;
    return false;
  }

  private enqueue(pattern: string): Waiting {
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const waiting = { pattern, done, settle };
    this.byPattern.set(pattern, waiting);
    this.queue.push(waiting);
    return waiting;
  }

  private finish(waiting: Waiting): void {
    const at = this.queue.indexOf(waiting);
    if (at >= 0) this.queue.splice(at, 1);
    if (this.running === waiting) this.running = undefined;
    this.byPattern.delete(waiting.pattern);
    waiting.settle();
  }

  private next(): void {
    if (this.broken) for (const waiting of [...this.queue]) this.judgeHere(waiting);
    if (this.running || this.queue.length === 0) return;
    const waiting = this.queue.shift()!;
    this.running = waiting;
    this.thread().postMessage(waiting.pattern);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // Beside this module: dist/bundle/pattern-worker.js, an entry of the bundle (scripts/bundle.mjs).
    const worker = new Worker(new URL("./pattern-worker.js", import.meta.url));
    worker.unref();
    worker.on("message", (m: { pattern: string; why?: string; error?: string }) => {
      if (m.error !== undefined) this.failed(m.pattern, m.error);
      else judged(m.pattern, m.why);
      const waiting = this.running;
      if (waiting?.pattern === m.pattern) this.finish(waiting);
      this.next();
    });
    worker.on("error", (e) => this.fallBack(e));
    return (this.worker = worker);
  }

  /** The worker is stopped (its pattern is needed no more), and a fresh one takes the queue. */
  private restart(): void {
    const running = this.running;
    this.running = undefined;
    void this.worker?.terminate();
    this.worker = undefined;
    if (running) this.finish(running);
  }

  /** No worker thread: the patterns are judged here, as `failbook lint` judges them, rather than never. */
  private fallBack(e: Error): void {
    this.log(`failbook lsp: the pattern checker's thread failed (${e.message}); checking patterns on the main thread`);
    this.worker = undefined;
    this.broken = true;
    for (const waiting of [this.running, ...this.queue]) if (waiting) this.judgeHere(waiting);
  }

  private judgeHere(waiting: Waiting): void {
    try {
      judgePattern(waiting.pattern);
    } catch (e) {
      this.failed(waiting.pattern, (e as Error)?.stack ?? String(e));
    }
    this.finish(waiting);
  }

  /** A check that failed (a bug) still ends in a verdict: the load must not wait for it again. */
  private failed(pattern: string, error: string): void {
    this.log(`failbook lsp: checking a message_matches pattern failed: ${error}`);
    judged(pattern, `could not be checked for ReDoS (${error.split("\n")[0]}: a bug in failbook); use message_contains meanwhile`);
  }
}
