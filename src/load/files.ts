/**
 * Where a project's files come from. The loader asks this interface, never the file system
 * directly, so the same loading and validation reads the working tree or, for a change
 * control baseline, the files of a git revision.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { FileRefused, pathExists, readTextFile } from "../util/fs.js";

export interface DirectoryEntry {
  name: string;
  directory: boolean;
}

export interface FileReader {
  /** What is at an absolute path (links followed): a file, a directory, or nothing. */
  kind(absolute: string): "file" | "directory" | undefined;
  /**
   * The text of a regular file of at most `maxBytes`, strict UTF-8. Throws FileRefused (a
   * usage error) when it is not one, with a message that says why.
   */
  readText(absolute: string, maxBytes?: number): string;
  /** The entries of a directory, in any order. */
  list(absolute: string): DirectoryEntry[];
  /** The path shown to the user (in findings and messages) for an absolute path. */
  display(absolute: string): string;
  /** The path with every symbolic link resolved; undefined when nothing is there. */
  realpath(absolute: string): string | undefined;
  /** The repository that holds a config (a real path): the files it may name stay inside. */
  repositoryRoot(configFile: string): string;
}

/** The working tree; paths are shown relative to `cwd` when that is shorter. */
export function diskReader(cwd: string): FileReader {
  const reader: FileReader = {
    kind(absolute) {
      try {
        return statSync(absolute).isDirectory() ? "directory" : "file";
      } catch {
        return undefined;
      }
    },
    readText(absolute, maxBytes) {
      return readTextFile(absolute, { maxBytes, shown: reader.display(absolute) });
    },
    list(absolute) {
      try {
        return readdirSync(absolute, { withFileTypes: true }).map((e) => ({ name: e.name, directory: e.isDirectory() }));
      } catch (e) {
        throw new FileRefused(`cannot list ${reader.display(absolute)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, "unreadable");
      }
    },
    display(absolute) {
      const rel = relative(cwd, absolute);
      return (rel.startsWith("..") && rel.split(sep).filter((s) => s === "..").length > 2) || rel === "" ? absolute : rel.split(sep).join("/");
    },
    realpath(absolute) {
      try {
        return realpathSync(absolute);
      } catch {
        return undefined;
      }
    },
    repositoryRoot(configFile) {
      // The git top level is the nearest folder holding .git (a directory, or a file in a
      // worktree or submodule); found without running git, so start-up stays fast.
      const start = reader.realpath(dirname(configFile)) ?? dirname(configFile);
      for (let dir = start; ; dir = dirname(dir)) {
        if (pathExists(join(dir, ".git"))) return dir;
        if (dirname(dir) === dir) return start;
      }
    },
  };
  return reader;
}
