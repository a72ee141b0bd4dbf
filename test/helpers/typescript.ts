/**
 * Compiling and importing generated TypeScript in tests: type-check a set of files with the
 * TypeScript compiler API (one program for all of them), and load one as a real ES module.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/** The strictest settings a consuming project may use; the generated module must pass them all. */
export const STRICTEST: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noImplicitOverride: true,
  noPropertyAccessFromIndexSignature: true,
  noFallthroughCasesInSwitch: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  declaration: true,
  emitDeclarationOnly: true,
  target: ts.ScriptTarget.ES2015,
  lib: ["lib.es2015.d.ts"],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  types: [],
  skipLibCheck: true,
};

/** Write `files` (relative path -> text) under a fresh directory; returns the directory. */
export function writeTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "failbook-ts-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

export interface Compiled {
  program: ts.Program;
  /** Diagnostics as `file:line:column TSnnnn message`, for the files given (and what they import). */
  diagnostics: string[];
}

/** Type-check files (absolute paths) in one program, declaration emit included (nothing is written). */
export function typeCheck(rootNames: string[], options: ts.CompilerOptions = STRICTEST): Compiled {
  const program = ts.createProgram({ rootNames, options });
  const emitted = program.emit(undefined, () => undefined, undefined, true);
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return `TS${d.code} ${text}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1}:${character + 1} TS${d.code} ${text}`;
  });
  return { program, diagnostics };
}

/** The JSDoc tags (name and text) on an exported declaration of a file in the program. */
export function exportTags(program: ts.Program, file: string, name: string): { name: string; text: string }[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
  if (!symbol) throw new Error(`${file} does not export ${name}`);
  return symbol.getJsDocTags(checker).map((t) => ({ name: t.name, text: ts.displayPartsToString(t.text) }));
}

/** The JSDoc tags an editor shows on one property of an exported constant's type. */
export function propertyTags(program: ts.Program, file: string, name: string, property: string): { name: string; text: string }[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
  if (!symbol) throw new Error(`${file} does not export ${name}`);
  const prop = checker.getTypeOfSymbol(symbol).getProperty(property);
  if (!prop) throw new Error(`${name} has no property ${property}`);
  return prop.getJsDocTags(checker).map((t) => ({ name: t.name, text: ts.displayPartsToString(t.text) }));
}

/** TypeScript -> JavaScript (an ES module), types erased, nothing checked. */
export function transpile(source: string): string {
  return ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext } }).outputText;
}

/**
 * Transpile TypeScript modules (relative path -> source, `.ts` names) into a fresh ES-module
 * directory as `.js` files, and import the one named `entry`.
 */
export async function importTypeScript<T = Record<string, unknown>>(files: Record<string, string>, entry: string): Promise<T> {
  const js: Record<string, string> = { "package.json": '{ "type": "module" }' };
  for (const [path, source] of Object.entries(files)) js[path.replace(/\.ts$/, ".js")] = transpile(source);
  const dir = writeTree(js);
  return (await import(pathToFileURL(join(dir, entry.replace(/\.ts$/, ".js"))).href)) as T;
}
