/**
 * How what the OpenAI Node SDK sees becomes a failbook adapter error, for the rules in
 * registry.yaml. The SDK decides on two things only, and so does this mapping:
 *
 *   a response that is not ok  -> kind http_error, http_status, and every header (the
 *                                 Headers object's names are already lower case)
 *   an error fetch threw       -> kind timeout when the SDK would call it one (an AbortError,
 *                                 or "timed out" in the error or its cause), else
 *                                 connection_error; both are retried alike
 *
 * test/sdk-openai.test.ts feeds the same responses and errors to this mapping (then
 * failbook) and to the SDK's client.
 */
import type { AdapterError } from "failbook";

export function responseError(response: { status: number; headers: Headers }): AdapterError {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { kind: "http_error", http_status: response.status, headers };
}

export function fetchError(thrown: unknown): AdapterError {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  const cause = "cause" in error ? String(error.cause) : "";
  const timeout = error.name === "AbortError" || String(error.message).includes("FetchRequestCanceledException") || /timed? ?out/i.test(String(error) + cause);
  return { kind: timeout ? "timeout" : "connection_error", message: error.message };
}
