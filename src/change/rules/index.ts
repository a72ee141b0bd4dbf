/** The change-control rules (SPEC section 8), one module per rule, in the order SPEC lists them. */
import type { ChangeRule } from "../rule.js";
import { registerRules } from "../../lint/rule.js";
import { codeRemoved } from "./code-removed.js";
import { codeAddedWithoutAdr } from "./code-added-without-adr.js";
import { classAddedWithoutAdr } from "./class-added-without-adr.js";
import { retryableLoosened } from "./retryable-loosened.js";
import { retryableTightened } from "./retryable-tightened.js";
import { classChanged } from "./class-changed.js";
import { reservedActivated } from "./reserved-activated.js";
import { actionWithoutGolden } from "./action-without-golden.js";
import { revisionNotBumped } from "./revision-not-bumped.js";
import { kindRemoved } from "./kind-removed.js";
import { outcomeChanged } from "./outcome-changed.js";
import { fieldRemoved } from "./field-removed.js";
import { quotaLoosened } from "./quota-loosened.js";
import { breakerLoosened } from "./breaker-loosened.js";
import { budgetLoosened } from "./budget-loosened.js";
import { rateLimitLoosened } from "./rate-limit-loosened.js";
import { fleetScopeDropped } from "./fleet-scope-dropped.js";

export const CHANGE_RULES: ChangeRule[] = [
  codeRemoved,
  codeAddedWithoutAdr,
  classAddedWithoutAdr,
  retryableLoosened,
  retryableTightened,
  classChanged,
  reservedActivated,
  actionWithoutGolden,
  revisionNotBumped,
  kindRemoved,
  fieldRemoved,
  quotaLoosened,
  breakerLoosened,
  budgetLoosened,
  rateLimitLoosened,
  fleetScopeDropped,
  outcomeChanged,
];

registerRules(CHANGE_RULES);
