// Types of findPostgres.mjs (plain JavaScript so that vitest.config.mts can load it).
export function findPostgres(env?: NodeJS.ProcessEnv): { bin: string; version: string } | null;
export function findPostgresServers(env?: NodeJS.ProcessEnv): { bin: string; version: string }[];
