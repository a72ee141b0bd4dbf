// Types for the record validator that scripts/compile-schemas.mjs generates from schemas/record.schema.json.
import type { Validator } from "../load/validators.generated.js";
export const record: Validator;
