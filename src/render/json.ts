/**
 * The registry as JSON for other tools. The shape is stable and published as
 * schemas/render.schema.json: keys are always present (null or [] when the YAML leaves them
 * out), codes are sorted, and `format_version` changes only on a breaking change.
 */
import { inertJson } from "failbook-runtime/util/inert.js";
import type { RegistryModel } from "./model.js";

export const RENDER_SCHEMA_ID = "https://failbook.dev/schemas/render.schema.json";
export const RENDER_FORMAT_VERSION = 1;

export interface RenderedJson extends RegistryModel {
  $schema: string;
  format_version: number;
}

export function renderJson(model: RegistryModel): string {
  const doc: RenderedJson = { $schema: RENDER_SCHEMA_ID, format_version: RENDER_FORMAT_VERSION, ...model };
  return inertJson(doc, 2) + "\n";
}
