// What `ajv validate -s schemas/registry.schema.json -d registry.yaml` (ajv-cli) does, with
// the ajv 8 and js-yaml failbook already depends on (ajv-cli is not installed): read the
// YAML, compile the schema, validate, print the verdict. The bench's reference for `lint`
// at 10k codes (issue 38): a user compares failbook with a schema-only check.
//
//   node scripts/bench/ajv-validate.mjs SCHEMA DATA.yaml     (exit 0 valid, 1 invalid)
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import yaml from "js-yaml";

const [schemaPath, dataPath] = process.argv.slice(2);
const ajv = new Ajv.default({ strict: false, allErrors: false });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, "utf8")));
const data = yaml.load(readFileSync(dataPath, "utf8"));
if (validate(data)) {
  console.log(`${dataPath} valid`);
} else {
  console.log(`${dataPath} invalid`);
  console.log(JSON.stringify(validate.errors, null, 2));
  process.exitCode = 1;
}
