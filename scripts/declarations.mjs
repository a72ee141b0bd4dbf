// The library's declarations in one file, dist/index.d.ts: the runtime's modules that src/
// imports as `failbook-runtime/...` are written into it, so a user's compiler needs nothing
// but this package (and the packages it depends on) to type-check an import of failbook.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateDtsBundle } from "dts-bundle-generator";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [text] = generateDtsBundle([{ filePath: join(root, "src/index.ts"), output: { noBanner: true } }], { preferredConfigPath: join(root, "tsconfig.json") });
writeFileSync(join(root, "dist/index.d.ts"), text);
