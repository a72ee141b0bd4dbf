import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // The CLI side imports the runtime's modules as `failbook-runtime/...` (tsconfig.json's paths).
    alias: [{ find: /^failbook-runtime\/(.*)$/, replacement: fileURLToPath(new URL("./packages/runtime/src/$1", import.meta.url)) }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file in a process of its own (vitest's default pool, said here because it matters):
    // the files spawn the CLI, npm, tsc, pyright and Chromium, and a file's heap is its own.
    pool: "forks",
    // Most of a file's time is a child process or a real timer it waits on, so one worker per
    // core, and at least two: vitest's default (cores - 1) ran the files one at a time on CI's
    // 2 cores (docs/performance.md, "Test suite").
    maxWorkers: Math.max(2, availableParallelism()),
    // The default reporter for people; the JSON report lets .ci/run print the plain summary.
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
