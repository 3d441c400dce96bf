/** Get Started's context keys and completion events (no vscode: package.json's test reads them). */
export const PULSES = ['a', 'b', 'c'] as const;
export const PULSE_KEY = 'loopx.walkthrough.pulse';
/** After a walkthrough opens: registration is done within ~5 s (VS Code waits at most 5 s for an experiment service). */
export const PULSE_AFTER_MS = [2000, 7000];

export const WALKTHROUGH_KEYS = {
  hasStore: 'loopx.walkthrough.hasStore',
  hasGoal: 'loopx.walkthrough.hasGoal',
  agentConnected: 'loopx.walkthrough.agentConnected',
  turnRan: 'loopx.walkthrough.turnRan',
  gateDecided: 'loopx.walkthrough.gateDecided',
} as const;

export type WalkthroughFacts = Record<keyof typeof WALKTHROUGH_KEYS, boolean>;

/** A step's completion events: its key, once per pulse value. */
export function completionEvents(key: string): string[] {
  return PULSES.map((p) => `onContext:${key} && ${PULSE_KEY} == ${p}`);
}
