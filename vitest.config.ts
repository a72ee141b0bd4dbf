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
    // The default reporter for people; the JSON report lets .ci/run print the plain summary.
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
