/**
 * Where a command's output goes: stdout, stderr and the files a command writes, with colour
 * decided once (terminal, NO_COLOR, FORCE_COLOR, --no-color). This is the output boundary:
 * every byte passes through redaction (SPEC 16, "secrets never leave") and the sanitiser
 * ("every output is inert") here, whatever printer made it.
 */
import { Chalk, type ChalkInstance } from "chalk";
import { ruleCatalogue } from "../lint/rule.js";
import { keepingVocabulary } from "../load/redaction.js";
import { createRedactor, type Redactor } from "failbook-runtime/engine/redact.js";
import { writeFileAtomic, type WriteOptions } from "../util/fs.js";
import { inert, inertOutput } from "failbook-runtime/util/inert.js";

export interface OutputStreams {
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

export interface IoOptions extends OutputStreams {
  noColor?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * failbook's rule ids are vocabulary too: `secret-in-project: warning` is a rule's severity,
 * not a secret's key and value. The ids are those of the rule families the command loaded,
 * read at the first redaction: the output layer does not load (and initialise) every lint
 * rule at the start of every command; a command that prints findings has loaded their rules.
 */
const keepingRuleIds = (redactor: Redactor): Redactor => keepingVocabulary(redactor, () => new Set(ruleCatalogue().map((rule) => rule.id)));

export class Io {
  readonly color: boolean;
  readonly c: ChalkInstance;
  /** An interactive terminal outside CI: Ink and live progress are allowed. */
  readonly interactive: boolean;
  private redactor: Redactor = keepingRuleIds(createRedactor());
  private readonly stdout: NodeJS.WriteStream;
  private readonly stderr: NodeJS.WriteStream;

  constructor(options: IoOptions = {}) {
    const env = options.env ?? process.env;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    this.color = decideColor(options.noColor ?? false, env, Boolean(this.stdout.isTTY));
    this.c = new Chalk({ level: this.color ? 1 : 0 });
    this.interactive = Boolean(this.stdout.isTTY && process.stdin.isTTY) && !isCi(env) && env.TERM !== "dumb";
  }

  /** Redact with the project's own redactor (its `redact:` patterns, its vocabulary kept: load/redaction.ts). */
  useRedactor(redactor: Redactor): void {
    this.redactor = keepingRuleIds(redactor);
  }

  /** Secrets replaced: for text that another layer (Ink, a code generator) prints. */
  redact(text: string): string {
    return this.redactor(text);
  }

  /** Exactly what `out` writes: secrets redacted, control and bidi characters escaped (colour kept when on). */
  printable(text: string): string {
    return inertOutput(this.redactor(text), this.color);
  }

  out(text: string): void {
    this.stdout.write(this.printable(text));
  }

  /** A terminal control sequence of failbook's own (a redraw's clear), written as is: never text from input. */
  control(sequence: string): void {
    this.stdout.write(sequence);
  }

  err(text: string): void {
    this.stderr.write(this.printable(text));
  }

  /** A one-line message on stderr, `failbook: …`: whatever input it quotes, it stays one line. */
  fail(message: string): void {
    this.err(`failbook: ${inert(message)}\n`);
  }

  /** Write a file a command produces (a baseline, a rendered page) through the same boundary, atomically. */
  writeFile(path: string, text: string, options: WriteOptions = {}): void {
    writeFileAtomic(path, inertOutput(this.redactor(text), false), options);
  }
}

export function decideColor(noColor: boolean, env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (noColor) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false") return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR === "0" || env.FORCE_COLOR === "false") return false;
  return isTty && env.TERM !== "dumb";
}

export function isCi(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CI && env.CI !== "false" && env.CI !== "0") || Boolean(env.GITHUB_ACTIONS);
}
