/** `failbook lint --against REF`: the change findings to add to the ordinary lint findings. */
import type { Finding } from "failbook-runtime/model/finding.js";
import type { Project } from "../load/project.js";
import { loadBaseline } from "./baseline.js";
import { checkChanges, sideOf } from "./check.js";

export async function changeFindings(project: Project, ref: string): Promise<Finding[]> {
  const current = sideOf(project, "working tree");
  if (!current) return []; // the current files failed their schemas; lint already says where
  const baseline = loadBaseline(ref, { currentConfig: project.configFile });
  return (await checkChanges(baseline, current)).findings;
}
