/** The command list: one module per command. */
import type { CommandRegistrar } from "./command.js";
import { registerInit } from "./init.js";
import { registerLint } from "./lint.js";
import { registerSimulate } from "./simulate.js";
import { registerClassify } from "./classify.js";
import { registerRender } from "./render.js";
import { registerExplain } from "./explain.js";
import { registerGen } from "./gen.js";
import { registerDiff } from "./diff.js";

export const COMMANDS: CommandRegistrar[] = [registerLint, registerInit, registerSimulate, registerClassify, registerRender, registerExplain, registerGen, registerDiff];
