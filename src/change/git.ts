/**
 * A git revision as a file source: a project's files as they were at REV, read with git
 * itself (`git ls-tree` for directories, the blob at `REV:path` for files), so a baseline
 * needs no checkout.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import type { DirectoryEntry, FileReader } from "../load/files.js";
import { decodeUtf8, DEFAULT_MAX_FILE_MB, FileRefused } from "../util/fs.js";

export interface GitRevision {
  /** The repository's top-level directory (real path). */
  root: string;
  rev: string;
}

/** Check that `rev` names a commit of the repository holding `dir`; a clear line when it does not. */
export function openRevision(rev: string, dir: string): GitRevision {
  if (rev === "") throw new UsageError("git: needs a revision after the colon, e.g. git:origin/main or git:HEAD~1");
  if (rev.startsWith("-")) throw new UsageError(`'${rev}' is not a git revision (it starts with '-')`);
  const top = git(["rev-parse", "--show-toplevel"], dir);
  if (!top.ok) throw new UsageError(`git:${rev} needs a git repository, but ${dir} is not inside one; compare with a path instead (a config file or a directory holding failbook.yaml)`);
  const root = realpathSync(top.stdout.trim());
  if (!git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`], root).ok) {
    const shallow = git(["rev-parse", "--is-shallow-repository"], root).stdout.trim() === "true";
    if (shallow) {
      throw new UsageError(
        `git revision '${rev}' is not in this shallow clone; fetch the history first (git fetch --unshallow origin), or in GitHub Actions check out with fetch-depth: 0`,
      );
    }
    throw new UsageError(`git revision '${rev}' not found in ${root}; ${missingAdvice(rev)}`);
  }
  return { root, rev };
}

/**
 * What to do about a revision that is not here. Only a plain name (a branch, a tag, a commit
 * id) can be fetched, and only such a name goes into a command a user may paste: it holds no
 * character a shell would read as anything but itself.
 */
function missingAdvice(rev: string): string {
  if (/[~^]/.test(rev)) {
    return "it counts back more commits than this history holds; name a commit that exists (git log --oneline lists them)";
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._\/-]*$/.test(rev) || rev.includes("..") || rev.endsWith("/") || rev.endsWith(".lock")) {
    return "name a branch, tag or commit of this repository (git branch -a and git tag list them)";
  }
  const remote = /^([A-Za-z0-9._-]+)\/(.+)$/.exec(rev);
  return `fetch it first (${remote ? `git fetch ${remote[1]} ${remote[2]}` : `git fetch origin ${rev}`}), or name another revision`;
}

/** The files of a revision. Paths outside the repository do not exist there. */
export function gitReader({ root, rev }: GitRevision): FileReader {
  type Entry = "file" | "directory" | "link";
  const listings = new Map<string, Map<string, Entry>>();
  const toRel = (absolute: string): string | undefined => {
    // Baseline paths are built from `root` itself, so a plain relative path is enough.
    const rel = relative(root, absolute).split(sep).join("/");
    return rel.startsWith("../") || rel === ".." || posix.isAbsolute(rel) ? undefined : rel;
  };
  const listing = (rel: string): Map<string, Entry> => {
    let entries = listings.get(rel);
    if (!entries) {
      entries = new Map();
      const r = git(["--literal-pathspecs", "ls-tree", "-z", rev, ...(rel === "" ? [] : ["--", `${rel}/`])], root);
      for (const line of r.ok ? r.stdout.split("\0") : []) {
        const m = /^(\d+) (blob|tree) [0-9a-f]+\t(.*)$/s.exec(line);
        if (m) entries.set(posix.basename(m[3]), m[1] === "120000" ? "link" : m[2] === "tree" ? "directory" : "file");
      }
      listings.set(rel, entries);
    }
    return entries;
  };
  const entryAt = (rel: string): Entry | undefined => {
    if (rel === "") return "directory";
    const parent = posix.dirname(rel);
    return listing(parent === "." ? "" : parent).get(posix.basename(rel));
  };
  /** Follow committed symbolic links component by component, as the file system would. */
  const realpath = (absolute: string): string | undefined => {
    const rel = toRel(absolute);
    if (rel === undefined) return absolute; // outside: the loader refuses it by its path
    const todo = rel === "" ? [] : rel.split("/");
    let done = "";
    for (let hops = 0; todo.length > 0; ) {
      const here = done === "" ? todo[0] : `${done}/${todo[0]}`;
      const entry = entryAt(here);
      if (entry === undefined) return undefined;
      todo.shift();
      if (entry !== "link") {
        done = here;
        continue;
      }
      if (++hops > 40) return undefined;
      const target = blob(here).toString("utf8");
      if (posix.isAbsolute(target)) return target;
      const joined = posix.normalize(posix.join(done, target));
      if (joined === ".." || joined.startsWith("../")) return join(root, joined);
      todo.unshift(...(joined === "." ? [] : joined.split("/")));
      done = "";
    }
    return done === "" ? root : join(root, done);
  };
  const blob = (rel: string): Buffer => {
    const r = gitBytes(["cat-file", "blob", `${rev}:${rel}`], root);
    if (!r.ok) throw new FileRefused(`git cannot read ${rev}:${rel} (${firstLine(r.stderr)})`, "unreadable");
    return r.stdout;
  };
  const reader: FileReader = {
    kind(absolute) {
      const real = realpath(absolute);
      const rel = real === undefined ? undefined : toRel(real);
      if (rel === undefined) return undefined;
      const entry = entryAt(rel);
      return entry === "link" ? undefined : entry;
    },
    readText(absolute, maxBytes = DEFAULT_MAX_FILE_MB * 1024 * 1024) {
      const real = realpath(absolute);
      const rel = real === undefined ? undefined : toRel(real);
      if (rel === undefined) throw new FileRefused(`${reader.display(absolute)} is not in the git repository at ${root} at ${rev}`, "missing");
      const size = Number(git(["cat-file", "-s", `${rev}:${rel}`], root).stdout.trim());
      if (size > maxBytes) throw new FileRefused(`${rev}:${rel} is larger than ${Math.round((maxBytes / 1048576) * 10) / 10} MB (max_file_mb); raise max_file_mb in failbook.yaml if it really belongs to the project`, "too-large");
      return decodeUtf8(blob(rel), `${rev}:${rel}`);
    },
    list(absolute) {
      const real = realpath(absolute);
      const rel = real === undefined ? undefined : toRel(real);
      const out: DirectoryEntry[] = [];
      if (rel !== undefined) for (const [name, kind] of listing(rel)) out.push({ name, directory: kind === "directory" });
      return out;
    },
    display(absolute) {
      const rel = toRel(absolute);
      return rel === undefined ? absolute : rel === "" ? `${root} at ${rev}` : `${rev}:${rel}`;
    },
    realpath,
    repositoryRoot: () => root,
  };
  return reader;
}

function git(args: string[], cwd: string): { ok: boolean; stdout: string; stderr: string } {
  const r = gitBytes(args, cwd);
  return { ...r, stdout: r.stdout.toString("utf8") };
}

/** Output as bytes: a blob is decoded strictly, never with replacement characters. */
function gitBytes(args: string[], cwd: string): { ok: boolean; stdout: Buffer; stderr: string } {
  const r = spawnSync("git", args, { cwd, maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === "ENOENT") throw new UsageError("git: baselines are read with git, and git is not installed or not on PATH");
    throw new UsageError(`git could not run in ${cwd}: ${r.error.message}`);
  }
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr.toString("utf8") };
}

const firstLine = (s: string) => s.trim().split("\n")[0] ?? "";
