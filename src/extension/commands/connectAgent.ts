import * as vscode from 'vscode';
import { writeAgentsMd } from '../../runtime/projections/agentsMd';
import { claudeMcpSetup, codexMcpSetup } from '../../runtime/projections/mcpSetup';
import { DEFAULT_HOSTS } from '../../runtime/hosts';
import { probeHost } from '../turns/hostProbe';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';
import { terminalEnv } from '../loopxSettings';

type Way = 'agentsMd' | 'claudeMcp' | 'codexMcp';

/**
 * Teaches an agent the loopx protocol, the two ways agents learn it: the managed block in AGENTS.md and CLAUDE.md
 * (read by Codex and Claude Code at start-up), or the MCP server (its set-up copied for the person to paste).
 * Takes the way as an argument too (the walkthrough's buttons, tests).
 */
export const connectAgent: CommandDefinition = {
  id: COMMANDS.connectAgent,
  async run(ctx, arg) {
    const way = isWay(arg)
      ? arg
      : (
          await vscode.window.showQuickPick(
            [
              {
                label: 'Write the loopx block into AGENTS.md and CLAUDE.md',
                detail: 'Codex reads AGENTS.md and Claude Code reads CLAUDE.md when they start; text outside the block is never touched.',
                way: 'agentsMd' as const,
              },
              {
                label: 'Copy the MCP set-up for Claude Code',
                detail: 'A “claude mcp add” command for a terminal, and the rule that lets Claude Code use loopx tools unasked.',
                way: 'claudeMcp' as const,
              },
              {
                label: 'Copy the MCP set-up for Codex',
                detail:
                  'A [mcp_servers.loopx] table for ~/.codex/config.toml that codex exec can use (tools approved, the agent name passed).',
                way: 'codexMcp' as const,
              },
            ],
            { title: 'LoopX: connect an agent', placeHolder: 'How should your agent learn to use loopx?' },
          )
        )?.way;
    if (!way) return undefined;
    if (way === 'agentsMd') {
      const results = writeAgentsMd(ctx.session.root);
      const changed = results.filter((r) => r.action !== 'unchanged').map((r) => vscode.workspace.asRelativePath(r.file));
      ctx.log.info(`agents-md: ${results.map((r) => `${r.action} ${r.file}`).join(', ')}`);
      const text = changed.length
        ? `LoopX: wrote the loopx block into ${changed.join(' and ')}. Agents started in this workspace now follow it.`
        : 'LoopX: AGENTS.md and CLAUDE.md already have the current loopx block.';
      const choice = await vscode.window.showInformationMessage(text, 'Open AGENTS.md');
      const agentsFile = results[0]?.file;
      if (choice && agentsFile) await vscode.window.showTextDocument(vscode.Uri.file(agentsFile));
      return results;
    }
    const snippet = way === 'claudeMcp' ? claudeMcpSetup(ctx.cliCommand) : codexMcpSetup(ctx.cliCommand);
    // The CLI it is for, as installed here: missing or too old is said with the set-up, not after it fails.
    const host = way === 'claudeMcp' ? 'claude' : 'codex';
    const verdict = await probeHost(host, DEFAULT_HOSTS[host]);
    if (verdict.problem === 'missing' || verdict.problem === 'too_old') void vscode.window.showWarningMessage(`LoopX: ${verdict.sentence}`);
    try {
      await vscode.env.clipboard.writeText(snippet);
    } catch {
      // A browser may refuse the clipboard: show the set-up in an editor to copy from instead.
      await vscode.window.showTextDocument(
        await vscode.workspace.openTextDocument({ content: snippet, language: way === 'codexMcp' ? 'toml' : 'shellscript' }),
      );
      return snippet;
    }
    // Not awaited: the command answers with what it copied; the buttons show it, or run Claude Code's command.
    const buttons = way === 'claudeMcp' ? ['Run in Terminal', 'Show What Was Copied'] : ['Show What Was Copied'];
    void vscode.window
      .showInformationMessage(
        way === 'claudeMcp'
          ? 'LoopX: copied the command that adds the loopx MCP server to Claude Code. Paste it into a terminal, or run it here.'
          : 'LoopX: copied the loopx MCP server table. Paste it into ~/.codex/config.toml.',
        ...buttons,
      )
      .then(async (choice) => {
        if (choice === 'Run in Terminal') {
          const terminal = vscode.window.createTerminal({ name: 'LoopX: Claude Code MCP set-up', cwd: ctx.session.root, ...terminalEnv() });
          terminal.show();
          terminal.sendText(snippet, true);
        } else if (choice === 'Show What Was Copied') {
          const doc = await vscode.workspace.openTextDocument({ content: snippet, language: way === 'codexMcp' ? 'toml' : 'shellscript' });
          await vscode.window.showTextDocument(doc);
        }
      });
    return snippet;
  },
};

function isWay(arg: unknown): arg is Way {
  return arg === 'agentsMd' || arg === 'claudeMcp' || arg === 'codexMcp';
}
