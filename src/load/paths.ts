/**
 * Which files a config may name (SPEC 16): every path in it resolves inside the repository
 * that holds the config, symbolic links included, so a pull request cannot point failbook
 * at a file elsewhere on the machine and have it echoed in a finding. A refusal is one line
 * at the config position that names the path; it never reads, so never echoes, the file.
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { FileReader } from "./files.js";
import type { YamlDocument } from "./yaml.js";

export class ConfigPaths {
  /** The repository's real path. */
  readonly repository: string;
  private readonly base: string;

  constructor(
    private readonly files: FileReader,
    configFile: string,
    private readonly configDoc: YamlDocument,
  ) {
    this.repository = files.repositoryRoot(configFile);
    this.base = dirname(configFile);
  }

  /** `file:line:column` of a config key, for messages. */
  where(key: readonly PathSegment[]): string {
    const pos = this.configDoc.locate(key);
    return `${pos.file}:${pos.line}:${pos.column}`;
  }

  /** The absolute path a config value names, relative to the config; refused when it leaves the repository. */
  resolve(value: string, key: readonly PathSegment[], what: string): string {
    const absolute = resolve(this.base, value);
    this.requireInside(absolute, key, what, value);
    return absolute;
  }

  /**
   * A file found by walking a directory: a link inside it may point anywhere, so it must
   * resolve inside the repository too, or inside the directory a user named on the command line.
   */
  requireInside(absolute: string, key: readonly PathSegment[] | undefined, what: string, shown = this.files.display(absolute), alsoUnder?: string): void {
    const real = this.realpathOfNearest(absolute);
    if (isInside(this.repository, real) || (alsoUnder !== undefined && isInside(this.realpathOfNearest(alsoUnder), real))) return;
    const at = key ? `${this.where(key)}: ` : "";
    throw new UsageError(
      `${at}${what} '${shown}' resolves outside the repository (${this.files.display(this.repository)}); failbook reads only the project's own files: move the file into the repository or correct the path`,
    );
  }

  /** The real path of the nearest part that exists, with the rest (not yet created) appended. */
  private realpathOfNearest(absolute: string): string {
    const missing: string[] = [];
    for (let path = absolute; ; path = dirname(path)) {
      const real = this.files.realpath(path);
      if (real !== undefined) return join(real, ...missing);
      if (dirname(path) === path) return absolute;
      missing.unshift(basename(path));
    }
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  // On Windows, relative() across drives gives an absolute path: outside as well.
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
