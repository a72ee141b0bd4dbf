/** `renderRegistry`: the error-code registry of a loaded project, as Markdown, HTML or JSON. */
import type { Project } from "../load/project.js";
import { projectRedactor } from "../load/redaction.js";
import { renderHtml } from "./html.js";
import { renderJson } from "./json.js";
import { renderMarkdown } from "./markdown.js";
import { buildModel, type RegistryModel } from "./model.js";

export const RENDER_FORMATS = ["md", "html", "json"] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

/** The project could not be rendered: its registry or playbook did not load (see the load findings). */
export class NotRenderable extends Error {
  constructor(readonly missing: "registry" | "playbook") {
    super(`the ${missing} did not load; run failbook lint to see why`);
    this.name = "NotRenderable";
  }
}

/** The model every format prints, with the project's secrets redacted from every text. */
export function projectModel(project: Project): RegistryModel {
  if (!project.registry) throw new NotRenderable("registry");
  if (!project.playbook) throw new NotRenderable("playbook");
  return buildModel(project.registry.value, project.playbook.value, { redact: projectRedactor(project) });
}

export function renderModel(model: RegistryModel, format: RenderFormat): string {
  switch (format) {
    case "md":
      return renderMarkdown(model);
    case "html":
      return renderHtml(model);
    case "json":
      return renderJson(model);
  }
}

export function renderRegistry(project: Project, format: RenderFormat): string {
  return renderModel(projectModel(project), format);
}
