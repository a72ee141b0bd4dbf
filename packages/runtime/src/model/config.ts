/** The project config, `failbook.yaml` (SPEC section 1). */

export type Severity = "error" | "warning" | "info";
export type SeveritySetting = Severity | "off";

export const DEFAULT_CODE_PATTERN = "^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$";

export interface Config {
  registry: string;
  playbook: string;
  /** Files or directories: a list, or one path. */
  fixtures?: string | string[];
  /** Storm files (SPEC 19): globs, directories or files (default `storms/`). */
  storms?: string | string[];
  adr_dir?: string;
  code_pattern?: string;
  rules?: Record<string, SeveritySetting>;
  gen?: { ts?: string; py?: string; jsonschema?: string };
  redact?: string[];
  /** Size limit of each file failbook reads, in MB (default 64). */
  max_file_mb?: number;
}
