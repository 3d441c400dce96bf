import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Kernel } from '../../kernel/kernel';
import { InvalidInputError, StoreMovedError } from '../../kernel/errors';
import { describeError } from '../../runtime/describeError';
import { failure, success } from '../../protocol/envelope';
import { locateRoot } from '../../runtime/locate';
import { StatusMdWhenIdle } from '../../runtime/projections/statusMdWhenIdle';
import { parseAgentName } from '../../kernel/validate';
import { VERSION } from '../main';
import { BoundedStdioTransport } from './boundedStdio';
import { MCP_TOOLS, type ToolContext } from './tools';
import { TEXT_LIMITS } from '../../shared/textLimits';

type Result = { content: { type: 'text'; text: string }[]; isError?: boolean };

export interface McpOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  root?: string;
  /** How long after its last write the server rewrites STATUS.md (tests shorten it). */
  statusMdIdleMs?: number;
  /** How the server opens the store it found (tests count the statements it runs); `Kernel.open` otherwise. */
  openStore?: (root: string) => Kernel;
}

/**
 * The MCP server over one kernel: the tools declared in `MCP_TOOLS` (tools.ts), run as the connected agent. Answers
 * are the CLI's JSON envelope, as text.
 */
export function createMcpServer(options: McpOptions): { server: McpServer; close(): void } {
  const server = new McpServer(
    { name: 'loopx', version: VERSION },
    {
      instructions:
        'Durable goals, todos, gates and evidence for long-running agent work. Claim one todo, write back evidence, ship or release, and ask a gate for anything a human must decide.',
    },
  );
  let kernel: Kernel | undefined;
  const openStore = options.openStore ?? ((root: string) => Kernel.open(root));
  const open = () => (kernel ??= openStore(locateRoot({ root: options.root, envRoot: options.env.LOOPX_ROOT, cwd: options.cwd })));
  const agentName = (): string => {
    if (options.env.LOOPX_AGENT !== undefined && options.env.LOOPX_AGENT.trim() === '') {
      throw new InvalidInputError(
        'LOOPX_AGENT is empty: an empty agent name is not "no agent"',
        "name the agent, or unset LOOPX_AGENT to use the client's name",
      );
    }
    const raw = options.env.LOOPX_AGENT || server.server.getClientVersion()?.name;
    if (!raw) throw new InvalidInputError('no agent identity: set LOOPX_AGENT for the MCP server, or connect with a named client');
    return parseAgentName(
      raw
        .replace(/[^A-Za-z0-9._@+-]/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '')
        .slice(0, TEXT_LIMITS.agentName) || 'agent',
      'MCP agent name',
    );
  };
  const asAgent = () => open().as({ name: agentName(), kind: 'agent' });
  // A write answers once its event is durable; STATUS.md, a projection, is marked now and rewritten when idle.
  const statusMd = new StatusMdWhenIdle(
    () => kernel,
    (message) => process.stderr.write(`loopx mcp: warning: ${message}\n`),
    options.statusMdIdleMs,
  );

  const ctx: ToolContext = { kernel: open, asAgent };
  for (const tool of MCP_TOOLS) {
    // The SDK's callback type is generic over every shape; each tool's `run` is checked against its own in tools.ts.
    const callback = async (args: Record<string, unknown>): Promise<Result> => {
      try {
        const data: unknown = await tool.run(ctx, args as never);
        if (tool.mutates) statusMd.changed();
        return { content: [{ type: 'text', text: JSON.stringify(success(data)) }] };
      } catch (error) {
        // The store was moved into a team store under this long-lived server (`loopx team push`): the next call opens
        // the store the workspace now points at, so the agent's retry lands there.
        if (error instanceof StoreMovedError) {
          statusMd.cancel();
          kernel?.close();
          kernel = undefined;
        }
        // The CLI's envelope and the same map from error to body (a locked store is `busy` here too).
        return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure(describeError(error, 'mcp').body)) }] };
      }
    };
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, callback as never);
  }

  return {
    server,
    close() {
      statusMd.flush();
      kernel?.close();
      kernel = undefined;
    },
  };
}

export async function serveMcp(options: McpOptions, transport: Transport = new BoundedStdioTransport()): Promise<void> {
  const { server, close } = createMcpServer(options);
  transport.onclose = close;
  await server.connect(transport);
}
