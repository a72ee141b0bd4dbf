import { classify } from "failbook-runtime/engine/classify.js";
import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import { DEFAULT_GATEWAY_ERROR, DEFAULT_OVERLOAD_ERROR } from "../model.js";
import { refusal } from "../rate-limit.js";
import { errorLabel } from "../upstream.js";
import type { StormRule } from "./rule.js";

export const errorUnclassified: StormRule = {
  id: "storm-error-unclassified",
  severity: "warning",
  description: "An error a storm's upstream returns that no registry rule classifies (the storm would test only the fallback verdict's action).",
  example: `# storms/brownout.yaml
upstream:
  errors: [{ ratio: 0.05, error: { kind: gateway_teapot } }]   # no registry rule matches this kind`,
  fix: "Give the storm an error the registry classifies (a kind, status or provider code of a verdict), or add the verdict the upstream really returns.",
  check(ctx) {
    const { registry, playbook } = ctx;
    const storm = ctx.storm.value;
    const { upstream } = storm;
    const errors: { error: AdapterError; path: PathSegment[] }[] = [];
    for (const [i, mix] of (upstream.errors ?? []).entries()) errors.push({ error: mix.error, path: ["upstream", "errors", i, "error"] });
    if (upstream.capacity !== undefined) errors.push({ error: upstream.overload_error ?? DEFAULT_OVERLOAD_ERROR, path: ["upstream", upstream.overload_error ? "overload_error" : "capacity"] });
    if (upstream.gateway !== undefined) errors.push({ error: upstream.gateway.error ?? DEFAULT_GATEWAY_ERROR, path: ["upstream", "gateway", upstream.gateway.error ? "error" : "timeout_ms"] });
    if (upstream.rate_limit !== undefined) errors.push({ error: refusal(upstream.rate_limit, upstream.rate_limit.per_ms, 0), path: ["upstream", "rate_limit"] });
    for (const [p, phase] of (storm.phases ?? []).entries()) for (const [i, mix] of (phase.errors ?? []).entries()) errors.push({ error: mix.error, path: ["phases", p, "errors", i, "error"] });
    for (const { error, path } of errors) {
      const tool = storm.clients.calls.find((c) => !classify(registry, error, c.tool, playbook).fallback)?.tool;
      if (tool !== undefined) continue;
      ctx.report({
        message: `the upstream's error '${errorLabel(error)}' classifies to the fallback verdict '${registry.fallback}' for every tool the storm calls: no registry rule matches it, so the storm tests only the fallback's action; add a match rule, or give the error the kind your adapter reports`,
        path,
        target: path[path.length - 1] === "error" || path[path.length - 1] === "overload_error" || path[path.length - 1] === "rate_limit" ? "key" : "value",
      });
    }
  },
};
