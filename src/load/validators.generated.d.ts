// Types for the validators that scripts/compile-schemas.mjs generates from schemas/.
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
export interface Validator {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}
export const config: Validator;
export const registry: Validator;
export const playbook: Validator;
export const fixture: Validator;
/** An adapter error alone: the fixture schema's #/definitions/error. */
export const adapter_error: Validator;
/** One verdict alone: the registry schema's #/definitions/verdict. */
export const registry_verdict: Validator;
