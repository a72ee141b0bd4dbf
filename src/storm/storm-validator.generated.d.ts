// Types for the storm validator that scripts/compile-schemas.mjs generates from schemas/storm.schema.json.
import type { Validator } from "../load/validators.generated.js";
export const storm: Validator;
