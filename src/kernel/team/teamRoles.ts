/**
 * The team store's names an agent's call needs (its catch-up listens on the channel; doctor names the roles), apart from
 * the schema's SQL: teamSchema.ts imports zod to generate the data checks, which only `team init` builds, and an agent
 * verb importing a constant from there would load zod with it (test/cli/agentVerbCost.test.ts).
 */

/** The role a person's database login is granted; its members may write HUMAN_ONLY_KINDS (authority.ts). */
export const HUMANS_ROLE = 'loopx_humans';
export const AGENTS_ROLE = 'loopx_agents';
/** The channel every commit notifies with its last seq, so replicas wake (teamLive.ts). */
export const NOTIFY_CHANNEL = 'loopx_log';
