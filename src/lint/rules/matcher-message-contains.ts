import { statusOf } from "failbook-runtime/model/registry.js";
import { perVerdict } from "../rule.js";

export const matcherMessageContains = perVerdict({
  id: "matcher-message-contains",
  severity: "info",
  description: "Classification by message text rather than structured fields.",
  checkVerdict({ registry, report }, v, vi) {
    if (statusOf(v) === "reserved") return; // never matches; reserved-in-use reports its rules
    const match = v.match ?? [];
    for (let ri = 0; ri < match.length; ri++) {
      if (match[ri].message_contains === undefined) continue;
      report({
        message: `match rule #${ri + 1} of '${v.code}' classifies by message text, which changes with upstream wording and language; prefer kind, http_status or provider_code where the adapter can report one`,
        doc: registry.doc,
        path: ["verdicts", vi, "match", ri, "message_contains"],
        target: "key",
      });
    }
  },
  example: `# playbooks/registry.yaml
  - code: rate_limited
    match: [{ message_contains: too many requests }]`,
  fix: "Match on a structured field the adapter can report (kind, http_status, provider_code, a declared field) and keep message text for what has none.",
});
