import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';

/** Listed for help; `loopx mcp` itself is started by the entry point, which keeps the process alive on stdio. */
export const mcp: Command = {
  name: ['mcp'],
  summary: 'a Model Context Protocol server on stdio with the agent verbs (it can never approve or reject a gate)',
  description:
    'Tools: loopx_status, loopx_next, loopx_todo_list, loopx_todo_show, loopx_claim, loopx_renew, loopx_release, loopx_ship, ' +
    'loopx_block, loopx_evidence, loopx_gate_ask, loopx_handoff, loopx_handoff_accept, loopx_monitor_add, loopx_monitor_list. ' +
    "The agent is LOOPX_AGENT, else the MCP client's name. " +
    'Claude Code: claude mcp add loopx -- loopx mcp · Codex: [mcp_servers.loopx] command = "loopx", args = ["mcp"] in ~/.codex/config.toml.',
  examples: ['claude mcp add loopx --env LOOPX_AGENT=claude -- loopx mcp'],
  run() {
    throw new InvalidInputError('loopx mcp speaks MCP on stdin/stdout; start it from an MCP client');
  },
};
