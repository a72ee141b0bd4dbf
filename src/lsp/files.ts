/**
 * The files the editor's project is loaded from: an open buffer counts over the file on disk
 * (unsaved edits are what the user sees), and a file on disk is read again only when it has
 * changed since the last read (its size or modification time), so an edit re-reads one file.
 */
import { statSync } from "node:fs";
import { diskReader, type FileReader } from "../load/files.js";
import { tooLarge } from "../util/fs.js";

export interface EditorFiles extends FileReader {
  /** Forget what was read from this path (the file changed on disk). */
  forget(absolute: string): void;
}

/** `open` gives an open buffer's text by absolute path; `cwd` is where paths are shown from. */
export function editorFiles(cwd: string, open: (absolute: string) => string | undefined): EditorFiles {
  const disk = diskReader(cwd);
  const read = new Map<string, { size: number; mtimeMs: number; text: string }>();
  return {
    ...disk,
    kind(absolute) {
      return open(absolute) !== undefined ? "file" : disk.kind(absolute);
    },
    readText(absolute, maxBytes) {
      const buffer = open(absolute);
      if (buffer !== undefined) {
        // The same limit as a file on disk: a buffer past max_file_mb is refused, not parsed.
        if (maxBytes !== undefined && buffer.length > maxBytes / 3 && Buffer.byteLength(buffer) > maxBytes) throw tooLarge(disk.display(absolute), maxBytes);
        return buffer;
      }
      const stat = statOf(absolute);
      const known = read.get(absolute);
      if (known && stat && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.text;
      const text = disk.readText(absolute, maxBytes);
      if (stat) read.set(absolute, { size: stat.size, mtimeMs: stat.mtimeMs, text });
      return text;
    },
    realpath(absolute) {
      return disk.realpath(absolute) ?? (open(absolute) !== undefined ? absolute : undefined);
    },
    forget(absolute) {
      read.delete(absolute);
    },
  };
}

function statOf(absolute: string): { size: number; mtimeMs: number } | undefined {
  try {
    const s = statSync(absolute);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}
