import { BASE_REGISTRY, registry, ruleTester, type Case } from "../helpers/rule-tester.js";

const ADRS = { "docs/adr/ADR-0010-retry-policy.md": "# ADR-0010\n", "docs/adr/0011-use-queues.md": "# 11\n", "docs/adr/README.md": "index\n" };
const withAdr = (name: string, adr: string): Case => ({
  name,
  config: "adr_dir: docs/adr",
  files: ADRS,
  registry: registry(`- { code: slow, class: transient, retryable: true, summary: s, recovery: r, adr: ${adr} }`),
});
const classAdr = (adr: string) => BASE_REGISTRY.replace("transient: { description: Temporary fault., max_retries: 3 }", `transient: { description: Temporary fault., max_retries: 3, adr: ${adr} }`);

ruleTester("adr-unresolved", {
  valid: [
    { name: "no adr_dir: the rule is off", registry: registry("- { code: slow, class: transient, retryable: true, adr: ADR-9999 }") },
    withAdr("a file named after the reference", "ADR-0010"),
    withAdr("case-insensitively", "adr-0010"),
    withAdr("the whole file name", "ADR-0010-retry-policy.md"),
    withAdr("by number, as adr-tools names files", "ADR-0011"),
    withAdr("by number without the zeros", "ADR-11"),
    withAdr("a link resolves itself", "https://wiki.example.com/adr/12"),
    { name: "a class's reference", config: "adr_dir: docs/adr", files: ADRS, registry: classAdr("ADR-0010") },
    { name: "an empty adr_dir with no references", config: "adr_dir: docs/adr", files: { "docs/adr/.keep": "" } },
  ],
  invalid: [
    {
      ...withAdr("", "ADR-0012"),
      name: "a reference with no file, at the adr value",
      findings: [{ message: "adr 'ADR-0012' of verdict 'slow' has no file in docs/adr (looked for a file name starting with 'ADR-0012', or numbered 12); add the ADR there, or fix the reference", line: 12, column: 84 }],
    },
    {
      ...withAdr("", "ADR-001"),
      name: "a prefix of a longer number is not a match",
      findings: [{ message: "adr 'ADR-001' of verdict 'slow' has no file in docs/adr", line: 12, column: 84 }],
    },
    {
      ...withAdr("", "decision-log"),
      name: "a name that is not a number",
      findings: [{ message: /looked for a file name starting with 'decision-log'\); add the ADR there/, line: 12, column: 84 }],
    },
    {
      name: "a class's reference",
      config: "adr_dir: docs/adr",
      files: ADRS,
      registry: classAdr("ADR-0099"),
      findings: [{ message: "adr 'ADR-0099' of class 'transient' has no file in docs/adr", line: 6, column: 68 }],
    },
    {
      name: "adr_dir that does not exist: one finding, at the config",
      config: "adr_dir: docs/decisions",
      files: ADRS,
      registry: classAdr("ADR-0010"),
      findings: [{ message: "adr_dir 'docs/decisions' is not a readable directory; create it and add the ADRs the registry references, or fix the path", file: "failbook.yaml", line: 3, column: 10 }],
    },
    {
      name: "adr_dir that is a file",
      config: "adr_dir: docs/adr/README.md",
      files: ADRS,
      findings: [{ message: "adr_dir 'docs/adr/README.md' is not a readable directory", file: "failbook.yaml", line: 3, column: 10 }],
    },
  ],
});
