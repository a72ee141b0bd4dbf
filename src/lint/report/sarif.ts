/** SARIF 2.1.0, with rule metadata, for code-scanning dashboards. */
import type { Finding } from "../../model/finding.js";
import type { RuleMeta } from "../rule.js";

const LEVEL = { error: "error", warning: "warning", info: "note" } as const;

export function formatSarif(findings: Finding[], rules: RuleMeta[], version: string): string {
  const ids = [...new Set([...rules.map((r) => r.id), ...findings.map((f) => f.rule)])];
  const meta = new Map(rules.map((r) => [r.id, r]));
  const index = new Map(ids.map((id, i) => [id, i]));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "failbook",
            version,
            informationUri: "https://github.com/failbook/failbook",
            rules: ids.map((id) => {
              const m = meta.get(id);
              return {
                id,
                name: id.replace(/(^|[-/])([a-z])/g, (_s, _sep: string, ch: string) => ch.toUpperCase()),
                shortDescription: { text: m?.description ?? id },
                defaultConfiguration: { level: LEVEL[m?.severity ?? "error"] },
                helpUri: `https://github.com/failbook/failbook#rule-${id.replace(/\//g, "-")}`,
              };
            }),
          },
        },
        columnKind: "unicodeCodePoints",
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: index.get(f.rule),
          level: LEVEL[f.severity],
          message: { text: f.message },
          locations: [location(f.file, f.line, f.column)],
          partialFingerprints: { "failbook/v1": f.fingerprint },
          ...(f.related ? { relatedLocations: f.related.map((r, i) => ({ id: i + 1, message: { text: r.message }, ...location(r.file, r.line, r.column) })) } : {}),
        })),
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
}

function location(file: string, line: number, column: number) {
  return {
    physicalLocation: {
      artifactLocation: { uri: file.split("\\").join("/") },
      region: { startLine: line, startColumn: column },
    },
  };
}
