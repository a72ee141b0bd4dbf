/**
 * `failbook simulate`'s live view on an interactive terminal: how many fixtures have run, how
 * many passed and failed, and the one running now. It is erased when the run ends, so that
 * what stays on the screen is exactly the plain report.
 */
import { Box, render, Text } from "ink";
import type { FixtureResult, SimulationProgress } from "../simulate/project.js";

export interface ProgressState {
  done: number;
  total: number;
  passed: number;
  failed: number;
  /** The fixture being run; undefined once all have run. */
  running: string | undefined;
}

const BAR_WIDTH = 24;
const CURSOR_UP = "\u001B[1A";

export function ProgressView({ state, color }: { state: ProgressState; color: boolean }) {
  const filled = state.total === 0 ? BAR_WIDTH : Math.round((BAR_WIDTH * state.done) / state.total);
  const tone = (name: string) => (color ? name : undefined);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>simulating </Text>
        <Text color={tone("cyan")}>{"█".repeat(filled)}</Text>
        <Text dimColor>{"░".repeat(BAR_WIDTH - filled)}</Text>
        <Text>
          {" "}
          {state.done}/{state.total}
        </Text>
        <Text dimColor> · </Text>
        <Text color={tone("green")}>{state.passed} passed</Text>
        <Text dimColor> · </Text>
        <Text color={state.failed > 0 ? tone("red") : undefined} bold={state.failed > 0}>
          {state.failed} failed
        </Text>
      </Text>
      {state.running === undefined ? null : (
        <Text dimColor wrap="truncate-end">
          {"  running "}
          {state.running}
        </Text>
      )}
    </Box>
  );
}

export interface ProgressOptions {
  color: boolean;
  /** Applied to every name shown, as to all of failbook's output. */
  redact: (text: string) => string;
  stdout?: NodeJS.WriteStream;
}

export interface LiveProgress {
  /** Pass as `simulateProject`'s `onResult`. */
  onResult: (result: FixtureResult, progress: SimulationProgress) => void;
  /** Erase the view and stop; the terminal is left as it was before the run. */
  close: () => Promise<void>;
}

/** Show the view for a run of `total` fixtures, the first of which is `first`. */
export function showProgress(total: number, first: string | undefined, options: ProgressOptions): LiveProgress {
  let state: ProgressState = { done: 0, total, passed: 0, failed: 0, running: first === undefined ? undefined : options.redact(first) };
  const view = () => <ProgressView state={state} color={options.color} />;
  const stdout = options.stdout ?? process.stdout;
  const instance = render(view(), { stdout, exitOnCtrlC: false, patchConsole: false });
  return {
    onResult(result, progress) {
      state = {
        done: progress.done,
        total: progress.total,
        passed: state.passed + (result.passed === true ? 1 : 0),
        failed: state.failed + (result.passed === false ? 1 : 0),
        running: progress.next === undefined ? undefined : options.redact(progress.next),
      };
      instance.rerender(view());
    },
    async close() {
      // An empty last frame makes Ink erase the view and leave one empty line; step back onto
      // it, so that the report starts where the view did.
      instance.rerender(null);
      instance.unmount();
      await instance.waitUntilExit();
      stdout.write(CURSOR_UP);
    },
  };
}
