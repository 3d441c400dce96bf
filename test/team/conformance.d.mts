// Types of conformance.mjs (plain JavaScript so that vitest.config.mts can load it).
export const TEAM_CONFORMANCE_FILES: string[];
export const SQLITE_ONLY: Record<string, string>;
export function conformanceRuns(env?: NodeJS.ProcessEnv): boolean;
export function engineFreeFiles(root: string): string[];
export const MOCKS_RESTORED: Record<string, string>;
export function requireNoSharedMocks(root: string): void;
