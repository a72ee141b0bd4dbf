/** The rule list is data: one module per rule, in the order the README documents them. */
import type { LintRule } from "../rule.js";
import { duplicateCode } from "./duplicate-code.js";
import { playbookExhaustive } from "./playbook-exhaustive.js";

export const RULES: LintRule[] = [duplicateCode, playbookExhaustive];
