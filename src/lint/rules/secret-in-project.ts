import { FAMILIES, holdsTrigger, SHORTEST_SECRET } from "failbook-runtime/engine/secrets.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { YamlDocument } from "../../load/yaml.js";
import { perVerdict, type RuleContext } from "../rule.js";

/** The rule's messages by id (ESLint's `meta.messages`); none quotes the string, which is the secret. */
const MESSAGES = {
  secretValue: (family: string) =>
    `this string holds a secret (${family}): the project's own text is never redacted, so it would be copied into generated code and every output; move the secret out of the project (an environment variable, a secret store), rotate it, and leave a placeholder`,
  secretKey: (family: string) =>
    `this key holds a secret (${family}): the project's own text is never redacted, so it would be copied into generated code and every output; rename it, move the secret out of the project, and rotate it`,
} as const;

/**
 * SPEC Part III: a secret committed in the project's own YAML (a queue name, a summary, a
 * fixture's argument) is vocabulary, which redaction leaves alone; so every string of the
 * config, registry, playbook and fixtures is scanned with redaction's own secret families.
 */
export const secretInProject = perVerdict({
  id: "secret-in-project",
  severity: "error",
  description: "A string of the config, registry, playbook or a fixture that a built-in redaction family recognises as a secret (the value is never echoed).",
  // Verdict by verdict (a registry of 10,000 verdicts is most of a project's strings), then the rest.
  checkVerdict({ registry, report }, verdict, index) {
    scan(verdict, ["verdicts", index], reporter(registry.doc, report));
  },
  checkRest({ project, registry, playbook, fixtures, report }) {
    for (const doc of [project.configDoc, registry.doc, playbook.doc, ...fixtures.map((f) => f.doc)]) {
      const value = doc === registry.doc ? withoutVerdicts(doc.value) : doc.value;
      scan(value, [], reporter(doc, report));
    }
  },
  example: `# playbooks/fixtures/charge.yaml
call: { id: call_1, tool: payments.charge, args: { api_key: "sk_live_..." } }   # a real key, committed`,
  fix: "Move the secret out of the project (an environment variable, a secret store), rotate it, and leave a placeholder; fixtures that hold fake secrets on purpose can set rules: { secret-in-project: warning }.",
});

type Found = (family: string, path: PathSegment[], target: "value" | "key") => void;

/** Each secret found in `doc`, reported (the message never quotes the string). */
const reporter =
  (doc: YamlDocument, report: RuleContext["report"]): Found =>
  (family, path, target) =>
    report({ message: target === "key" ? MESSAGES.secretKey(family) : MESSAGES.secretValue(family), doc, path, target });

/** The registry without its verdict list (its key is scanned, its verdicts one by one). */
function withoutVerdicts(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "verdicts" ? [] : v]));
}

/** Every key and string value inside a document that holds a secret, with its path (one path array, copied only for a finding: a registry has 100,000s of strings). */
function scan(value: unknown, path: PathSegment[], found: Found): void {
  if (typeof value === "string") {
    const family = familyOf(value);
    if (family !== undefined) found(family, [...path], "value");
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      scan(value[i], path, found);
      path.pop();
    }
  } else if (value !== null && typeof value === "object") {
    // Own keys in for-in's order, without its walk of the prototype chain.
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      path.push(k);
      const family = familyOf(k);
      if (family !== undefined) found(family, [...path], "key");
      scan((value as Record<string, unknown>)[k], path, found);
      path.pop();
    }
  }
}

/** The first built-in family that finds a secret in the text, by its short name (the redactor's own trigger first, so most strings cost one scan). */
function familyOf(text: string): string | undefined {
  if (text.length < SHORTEST_SECRET || !holdsTrigger(text)) return undefined;
  for (const { name, re } of FAMILIES) {
    re.lastIndex = 0;
    const hit = re.test(text);
    re.lastIndex = 0;
    // The name without its examples: `password in a URL (scheme://user:password@host)` would be redacted itself.
    if (hit) return name.replace(/ \(.*$/, "");
  }
  return undefined;
}
