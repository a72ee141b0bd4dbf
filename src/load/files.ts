/**
 * Where a project's files come from. The loader asks this interface, never the file system
 * directly, so the same loading and validation reads the working tree or, for a change
 * control baseline, the files of a git revision.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { relative, sep } from "node:path";

export interface DirectoryEntry {
  name: string;
  directory: boolean;
}

export interface FileReader {
  /** What is at an absolute path: a file, a directory, or nothing. */
  kind(absolute: string): "file" | "directory" | undefined;
  /** The text of a file; throws an Error whose message says why it cannot be read. */
  readText(absolute: string): string;
  /** The entries of a directory, in any order. */
  list(absolute: string): DirectoryEntry[];
  /** The path shown to the user (in findings and messages) for an absolute path. */
  display(absolute: string): string;
}

/** The working tree; paths are shown relative to `cwd` when that is shorter. */
export function diskReader(cwd: string): FileReader {
  return {
    kind(absolute) {
      try {
        return statSync(absolute).isDirectory() ? "directory" : "file";
      } catch {
        return undefined;
      }
    },
    readText(absolute) {
      try {
        return readFileSync(absolute, "utf8");
      } catch (e) {
        throw new Error((e as NodeJS.ErrnoException).code ?? (e as Error).message);
      }
    },
    list(absolute) {
      return readdirSync(absolute, { withFileTypes: true }).map((e) => ({ name: e.name, directory: e.isDirectory() }));
    },
    display(absolute) {
      const rel = relative(cwd, absolute);
      return (rel.startsWith("..") && rel.split(sep).filter((s) => s === "..").length > 2) || rel === "" ? absolute : rel.split(sep).join("/");
    },
  };
}
