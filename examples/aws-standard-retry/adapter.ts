/**
 * How an AWS SDK for JavaScript v3 error becomes a failbook adapter error, for the rules in
 * registry.yaml. It copies what the SDK's own classifiers (@smithy/core/retry: isThrottlingError,
 * isTransientError, isServerError) and its Retry-After reader look at, and nothing else:
 *
 *   error.name                        -> kind
 *   error.message                     -> message
 *   error.$metadata.httpStatusCode    -> http_status
 *   error.$response.headers           -> headers (only from a response, as the SDK reads them)
 *   error.code                        -> fields.node_code (ECONNRESET, ERR_HTTP2_STREAM_ERROR, ...)
 *   error.$retryable !== undefined    -> fields.retryable_trait: true
 *   error.$retryable.throttling == true -> fields.throttling_trait: true
 *   error.$metadata.clockSkewCorrected -> fields.clock_skew_corrected: true
 *   error.cause                       -> cause, the same mapping, at most 8 deep
 *
 * test/sdk-aws.test.ts feeds the same errors to this mapping (then failbook) and to the SDK.
 */
import type { AdapterError } from "failbook";

/** The parts of an SDK error that its retry decision reads. */
export interface AwsSdkError {
  name: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number; clockSkewCorrected?: boolean };
  $retryable?: { throttling?: boolean };
  $response?: { statusCode: number; headers: Record<string, string> };
  cause?: unknown;
}

/** failbook follows an error's cause this deep (SPEC 12). */
const CAUSE_DEPTH = 8;

export function toAdapterError(error: AwsSdkError, depth = 0): AdapterError {
  const out: AdapterError = { kind: typeof error.name === "string" && error.name !== "" ? error.name : "Error" };
  if (typeof error.message === "string" && error.message !== "") out.message = error.message;
  const status = error.$metadata?.httpStatusCode;
  if (typeof status === "number" && Number.isInteger(status) && status >= 100 && status <= 999) out.http_status = status;
  const response = error.$response;
  // The SDK reads hints only from something shaped like its HttpResponse.
  if (response !== undefined && typeof response.statusCode === "number" && typeof response.headers === "object" && response.headers !== null) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") headers[name] = value;
    out.headers = headers;
  }
  const fields: Record<string, string | boolean> = {};
  if (typeof error.code === "string") fields.node_code = error.code;
  if (error.$retryable !== undefined) fields.retryable_trait = true;
  // Loose equality, as the SDK writes it.
  // eslint-disable-next-line eqeqeq
  if (error.$retryable?.throttling == true) fields.throttling_trait = true;
  if (error.$metadata?.clockSkewCorrected) fields.clock_skew_corrected = true;
  if (Object.keys(fields).length > 0) out.fields = fields;
  const cause = error.cause;
  if (depth < CAUSE_DEPTH && cause !== null && typeof cause === "object") out.cause = toAdapterError(cause as AwsSdkError, depth + 1);
  return out;
}
