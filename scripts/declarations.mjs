// The declarations of both packages, each in one file: packages/runtime/dist/index.d.ts and
// dist/index.d.ts (failbook's, with the runtime's modules that src/ imports as
// `failbook-runtime/...` written into it), each also as index.d.cts for `require` under
// NodeNext. A user's compiler needs nothing but the package to type-check an import of it.
//
// Every optional property is declared `?: T | undefined` (SPEC 17): under a user's
// `exactOptionalPropertyTypes`, an adapter may pass `undefined` for any of them, as the
// generated bindings allow. (failbook compiles without that option, where the two mean the same.)
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateDtsBundle } from "dts-bundle-generator";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = [
  { entry: "packages/runtime/src/index.ts", out: "packages/runtime/dist/index" },
  { entry: "packages/runtime/src/redis/index.ts", out: "packages/runtime/dist/redis" },
  { entry: "src/index.ts", out: "dist/index" },
];
const texts = generateDtsBundle(
  PACKAGES.map((p) => ({ filePath: join(root, p.entry), output: { noBanner: true } })),
  { preferredConfigPath: join(root, "tsconfig.json") },
);
for (const [i, p] of PACKAGES.entries()) {
  const text = acceptUndefined(texts[i]);
  for (const ext of [".d.ts", ".d.cts"]) writeFileSync(join(root, p.out + ext), text);
}

/** `name?: T;` becomes `name?: T | undefined;` in every interface and type literal, nested ones too; an optional method likewise. */
function acceptUndefined(text) {
  const file = ts.createSourceFile("index.d.ts", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits = [];
  const visit = (node) => {
    if (ts.isPropertySignature(node) && node.questionToken && node.type && !admitsUndefined(node.type)) {
      const wrap = ts.isFunctionTypeNode(node.type) || ts.isConstructorTypeNode(node.type) || ts.isConditionalTypeNode(node.type);
      if (wrap) edits.push({ at: node.type.getStart(file), text: "(" });
      edits.push({ at: node.type.getEnd(), text: wrap ? ") | undefined" : " | undefined" });
    }
    // `name?(a: A): R;` becomes `name?: ((a: A) => R) | undefined;`.
    if (ts.isMethodSignature(node) && node.questionToken && node.type) {
      const colon = text.lastIndexOf(":", node.type.getStart(file));
      edits.push({ at: node.questionToken.getEnd(), text: ": (" });
      edits.push({ at: colon, remove: 1, text: " =>" });
      edits.push({ at: node.type.getEnd(), text: ") | undefined" });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  // Insertions (and a colon replaced), applied from the end: every offset stays valid, and nested ones compose.
  edits.sort((a, b) => b.at - a.at);
  let out = text;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at + (e.remove ?? 0));
  return out;
}

function admitsUndefined(type) {
  if (type.kind === ts.SyntaxKind.UndefinedKeyword || type.kind === ts.SyntaxKind.AnyKeyword || type.kind === ts.SyntaxKind.UnknownKeyword) return true;
  return ts.isUnionTypeNode(type) && type.types.some(admitsUndefined);
}
