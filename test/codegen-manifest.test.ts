import { describe, expect, it } from "vitest";
import { compareManifests, inputsHash, manifestOf } from "../src/codegen/manifest.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";

const registry = (verdicts: unknown[]): Registry => ({ apiVersion: "failbook/v1", kind: "Registry", name: "r", revision: 1, fallback: "unknown_error", classes: {}, verdicts }) as unknown as Registry;
const playbook = (verdicts: Record<string, unknown>): Playbook => ({ apiVersion: "failbook/v1", kind: "Playbook", name: "p", verdicts }) as unknown as Playbook;

const timeout = { code: "timeout", class: "transient", retryable: true, match: [{ kind: "timeout", http_status: [504, "5xx"] }] };
const declined = { code: "declined", class: "permanent", retryable: false, match: [{ provider_code: "card_declined" }] };
const actions = { timeout: { action: "retry_with_backoff", max_retries: 3, backoff_ms: [100, 400, 1600] }, declined: { action: "fail", message: "no" } };

describe("the generated file's manifest", () => {
  it("hashes what was parsed, not how it was written: key order does not count", () => {
    const reordered = { match: [{ http_status: [504, "5xx"], kind: "timeout" }], retryable: true, class: "transient", code: "timeout" };
    const a = manifestOf(registry([timeout, declined]), playbook(actions));
    const b = manifestOf(registry([reordered, declined]), playbook({ declined: actions.declined, timeout: { backoff_ms: [100, 400, 1600], max_retries: 3, action: "retry_with_backoff" } }));
    expect(b).toEqual(a);
    expect(inputsHash(b)).toBe(inputsHash(a));
    expect(a.verdicts.timeout).toMatch(/^[0-9a-f]{12}$/);
  });

  it("names exactly the verdict whose entry or action changed, however deep, and tells a number from its text", () => {
    const before = manifestOf(registry([timeout, declined]), playbook(actions));
    const changes = [
      manifestOf(registry([{ ...timeout, match: [{ kind: "timeout", http_status: [504, "5xx", 503] }] }, declined]), playbook(actions)),
      manifestOf(registry([{ ...timeout, match: [{ kind: "timeout", http_status: ["504", "5xx"] }] }, declined]), playbook(actions)),
      manifestOf(registry([timeout, declined]), playbook({ ...actions, timeout: { ...actions.timeout, backoff_ms: [100, 400, 1601] } })),
    ];
    for (const after of changes) {
      expect(compareManifests(before, after)).toEqual({ added: [], removed: [], changed: ["timeout"], settings: [] });
      expect(inputsHash(after)).not.toBe(inputsHash(before));
    }
  });

  it("keeps apart what canonical JSON keeps apart: a key's value moved to another key, an empty string and no key", () => {
    const hashOf = (extra: Record<string, unknown>) => manifestOf(registry([{ ...declined, ...extra }]), playbook(actions)).verdicts.declined;
    const seen = new Set([hashOf({}), hashOf({ a: "bc" }), hashOf({ ab: "c" }), hashOf({ a: "" }), hashOf({ a: ["bc"] }), hashOf({ a: null }), hashOf({ a: 0 }), hashOf({ a: "0" })]);
    expect(seen.size).toBe(8);
    // What canonical JSON cannot tell apart, neither does the manifest: an undefined member is no member, -0 is 0.
    expect(hashOf({ a: undefined })).toBe(hashOf({}));
    expect(hashOf({ a: -0 })).toBe(hashOf({ a: 0 }));
  });
});
