/**
 * What the application registered with `@opentelemetry/api` 1.x, found where the API keeps
 * it (`registerGlobal`): failbook imports nothing of the API, an optional peer, and describes
 * the few methods it calls structurally.
 */

/** Where `@opentelemetry/api` 1.x keeps its global registrations. */
const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

type Registrations = { metrics?: unknown; trace?: unknown; context?: unknown };

/** The provider (or context manager) registered as `type`, if any. */
export function registered(type: keyof Registrations): unknown {
  return (globalThis as { [API_GLOBAL]?: Registrations })[API_GLOBAL]?.[type];
}

/** The semantic conventions' `error.type` when nothing more specific is known. */
export const OTHER_ERROR = "_OTHER";

/** An exception's `error.type`: its class name (`ConnectionTimeoutError`, `TypeError`) when it is a plain identifier, else `_OTHER`; never its message. */
export function errorTypeOf(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return name !== undefined && /^[A-Za-z][A-Za-z0-9_.]{0,63}$/.test(name) ? name : OTHER_ERROR;
}
