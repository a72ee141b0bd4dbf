import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { LintRule } from "../rule.js";

export const adrUnresolved: LintRule = {
  id: "adr-unresolved",
  severity: "error",
  verdictFields: ["code", "adr"],
  description: "An adr: reference with no file in adr_dir.",
  check({ project, registry, report }) {
    const dir = project.config.adr_dir;
    if (dir === undefined) return;
    const files = project.adrFiles;
    if (!files) {
      report({
        message: `adr_dir '${dir}' is not a readable directory; create it and add the ADRs the registry references, or fix the path`,
        doc: project.configDoc,
        path: ["adr_dir"],
      });
      return;
    }
    const check = (ref: string, owner: string, path: PathSegment[]) => {
      if (resolves(ref, files)) return;
      const number = adrNumber(ref);
      const looked = `a file name starting with '${ref.trim()}'${number === undefined ? "" : `, or numbered ${number}`}`;
      report({
        message: `adr '${ref}' of ${owner} has no file in ${dir} (looked for ${looked}); add the ADR there, or fix the reference`,
        doc: registry.doc,
        path,
      });
    };
    for (const [name, cls] of Object.entries(registry.value.classes)) {
      if (cls?.adr !== undefined) check(cls.adr, `class '${name}'`, ["classes", name, "adr"]);
    }
    const verdicts = registry.value.verdicts;
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i];
      if (v.adr !== undefined) check(v.adr, `verdict '${v.code}'`, ["verdicts", i, "adr"]);
    }
  },
  example: `# failbook.yaml
adr_dir: docs/adr
# playbooks/registry.yaml
  - { code: rate_limited, class: transient, retryable: true, adr: ADR-0042 }   # no docs/adr/ADR-0042*.md`,
  fix: "Add the decision record to adr_dir (ADR-0042.md or ADR-0042-title.md), or fix the reference.",
};

/**
 * A reference resolves to a file whose name starts with it (case-insensitively, up to a
 * word boundary: ADR-001 is not ADR-0010-foo.md), or that carries the same ADR number
 * (ADR-0010 finds 0010-use-queues.md, as adr-tools names them). A link resolves itself.
 */
export function resolves(ref: string, files: readonly string[]): boolean {
  const r = ref.trim().toLowerCase();
  if (r === "") return false;
  if (/^https?:\/\//.test(r)) return true;
  const number = adrNumber(r);
  return files.some((name) => {
    const n = name.toLowerCase();
    if (n.startsWith(r) && !/[a-z0-9]/.test(n.charAt(r.length))) return true;
    const numbered = /^(?:adr[-_ ]?)?0*(\d+)(?!\d)/.exec(n);
    return number !== undefined && numbered !== null && Number(numbered[1]) === number;
  });
}

/** The number of a reference such as ADR-0010, adr_10 or 0010; undefined for any other name. */
function adrNumber(ref: string): number | undefined {
  const m = /^(?:adr)?[-_ ]?0*(\d+)$/i.exec(ref.trim());
  return m ? Number(m[1]) : undefined;
}
