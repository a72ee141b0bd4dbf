/**
 * Every rule's metadata is complete: `failbook explain RULE-ID` prints its description, an
 * example and the fix from it (SPEC Part III), for the load, lint and change-control rules alike.
 */
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { allRuleMeta } from "../src/lint/lint.js";
import "../src/change/rules/index.js";

const rules = allRuleMeta();

/** The excerpts of an example: the lines under each comment line at column 0, dedented. */
function excerpts(example: string): string[] {
  const chunks = example.split(/^#.*$/m).map((c) => c.replace(/^\n+|\n+$/g, "")).filter((c) => c.trim() !== "");
  return chunks.map((chunk) => {
    const indent = Math.min(...chunk.split("\n").filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)![0].length));
    return chunk.split("\n").map((l) => l.slice(indent)).join("\n");
  });
}

const yamlErrors = (text: string): string[] => parseAllDocuments(text).flatMap((d) => ("errors" in d ? d.errors.map((e) => e.message) : []));

describe("rule metadata", () => {
  it("covers every family: load, lint and change-control rules", () => {
    const ids = rules.map((r) => r.id);
    for (const id of ["yaml-syntax", "schema", "retry-committed", "verdict-untested", "change/code-removed", "change/outcome-changed"]) expect(ids).toContain(id);
  });

  it.each(rules.map((r) => [r.id, r] as const))("%s has a description, an example and a fix", (_id, rule) => {
    expect(rule.description.trim()).not.toBe("");
    expect(rule.fix.trim()).not.toBe("");
    expect(rule.fix).toMatch(/[.)]$/);
    expect(rule.example.trim()).not.toBe("");
    // The example is the project's YAML, each file (or excerpt) under a comment naming it;
    // every excerpt parses, once dedented, except yaml-syntax's, which is broken on purpose.
    expect(rule.example).toMatch(/^# /);
    if (rule.id !== "yaml-syntax") for (const excerpt of excerpts(rule.example)) expect(yamlErrors(excerpt), excerpt).toEqual([]);
  });
});
