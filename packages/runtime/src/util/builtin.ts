/**
 * Node's crypto module, loaded on first use. Loading it costs a few milliseconds at start-up
 * (a dozen internal modules), and most runs of the CLI hash nothing: `failbook lint` of a
 * project without findings, `--version`. Node 20.16+ hands a built-in over without a require
 * function; before that, a require function made anywhere resolves built-ins all the same.
 */
import { createRequire } from "node:module";

type Crypto = typeof import("node:crypto");

let crypto: Crypto | undefined;

export function nodeCrypto(): Crypto {
  return (crypto ??= (process.getBuiltinModule?.("node:crypto") as Crypto | undefined) ?? (createRequire(process.execPath)("node:crypto") as Crypto));
}
