/** The command list: one module per command. */
import type { CommandRegistrar } from "./command.js";
import { registerLint } from "./lint.js";
import { registerInit } from "./init.js";
import { registerSimulate } from "./simulate.js";
import { registerClassify } from "./classify.js";
import { registerRender } from "./render.js";
import { registerExplain } from "./explain.js";
import { registerDiff } from "./diff.js";

export const COMMANDS: CommandRegistrar[] = [registerLint, registerInit, registerSimulate, registerClassify, registerRender, registerExplain, registerDiff];
