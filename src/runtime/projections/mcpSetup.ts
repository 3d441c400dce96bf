import { shellWord } from '../../kernel/turns/turnCommands';

/**
 * The MCP set-up for each agent CLI, as Connect an Agent copies it and docs/cli.md (MCP) shows it: one home, tested
 * against the real CLIs (test/agents).
 *
 * Claude Code: `claude mcp add` for the user, with the agent's name; in `-p` mode it asks nobody, so its tools need
 * an allow rule: `mcp__loopx` allows every loopx tool (none of them makes a person's decision).
 */
export function claudeMcpSetup(loopx: string): string {
  return [
    `claude mcp add --scope user loopx --env LOOPX_AGENT=claude -- ${shellWord(loopx)} mcp`,
    '# Claude Code asks before it uses a tool; to let it use loopx unasked (claude -p asks nobody), either:',
    '#   claude -p --allowedTools mcp__loopx …     or add "mcp__loopx" to permissions.allow in ~/.claude/settings.json',
    '',
  ].join('\n');
}

/**
 * Codex (~/.codex/config.toml): `codex exec` refuses MCP tools under its approval policy unless the server's tools
 * are approved, and passes no environment to MCP servers unless told, so LOOPX_AGENT (the turn's agent) is passed
 * through by name.
 */
export function codexMcpSetup(loopx: string): string {
  return [
    '[mcp_servers.loopx]',
    `command = ${JSON.stringify(loopx)}`,
    'args = ["mcp"]',
    'env_vars = ["LOOPX_AGENT"]                 # the turn\'s agent name reaches the server',
    'default_tools_approval_mode = "approve"    # codex exec may call loopx tools (none decides for a person)',
    '',
  ].join('\n');
}
