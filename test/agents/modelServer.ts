import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A scripted model on 127.0.0.1 for the real agent CLIs: Claude Code talks to it as the Anthropic Messages API
 * (`ANTHROPIC_BASE_URL`), Codex as the OpenAI Responses API (a custom provider with `wire_api = "responses"`), both
 * streaming (SSE). No model decides anything: a script reads the prompt the CLI sends, and the server answers each
 * request with the script's next shell command, as a call of whichever shell tool the CLI offers in that request,
 * then ends the turn with a line of text. What came back from each call (the CLI's tool result) is recorded, so a
 * test can read what the CLI did with a command: ran it, or refused it.
 */
/** A step of a script: a shell command (through the CLI's shell tool), or a call of another tool it offers (MCP). */
export type Step = string | { tool: string; input: Record<string, unknown> };

export interface ModelServerOptions {
  /** The steps to run, in order, for the prompt the CLI was given (the first user text of the turn). */
  script(prompt: string): Step[];
}

export interface ToolCall {
  api: 'anthropic' | 'openai' | 'chat' | 'gemini';
  /** The tool the server called: Claude Code's `Bash`, or Codex's shell tool as it offered it. */
  tool: string;
  command: string;
  /** What the CLI sent back as the result; null until the next request brings it. */
  output: string | null;
}

export interface ModelServer {
  url: string;
  port: number;
  /** Every shell call the server made, in order, with its result once known. */
  calls: ToolCall[];
  /** Every request (method, path), including the ones answered 404: what the CLI tried to reach. */
  requests: { method: string; path: string }[];
  /** Requests that carried a turn's prompt but whose script found nothing to run (the prompt did not parse). */
  problems: string[];
  /**
   * Whatever tried to reach another host through it: the server is also the CLIs' HTTP(S) proxy (`proxyEnv`), so
   * a request for anything but 127.0.0.1 lands here (CONNECT, or an absolute URL) and is refused.
   */
  outside: string[];
  close(): Promise<void>;
}

export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const calls: ToolCall[] = [];
  const requests: { method: string; path: string }[] = [];
  const problems: string[] = [];
  const outside: string[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      requests.push({ method: req.method ?? '', path: req.url ?? '' });
      try {
        route(req, res, body);
      } catch (error) {
        problems.push(`${req.url}: ${(error as Error).message}`);
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: (error as Error).message } }));
      }
    });
  });

  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    outside.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });

  function route(req: IncomingMessage, res: ServerResponse, body: string): void {
    if (/^https?:\/\//.test(req.url ?? '')) {
      outside.push(`${req.method} ${req.url}`);
      res.writeHead(403);
      return void res.end();
    }
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages') return anthropic(res, JSON.parse(body) as AnthropicRequest);
    if (req.method === 'POST' && path === '/v1/responses') return openai(res, JSON.parse(body) as OpenAiRequest);
    if (req.method === 'POST' && /^(\/v1)?\/chat\/completions$/.test(path ?? '')) return chat(res, JSON.parse(body) as ChatRequest);
    const gemini = /^\/v1(?:beta|alpha)?\/models\/([^:/]+):(streamGenerateContent|generateContent)$/.exec(path ?? '');
    if (req.method === 'POST' && gemini) return google(res, JSON.parse(body) as GeminiRequest, gemini[2] === 'streamGenerateContent');
    if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
      res.writeHead(200);
      return void res.end();
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'not_found_error', message: `no ${req.method} ${path} here` } }));
  }

  /** The next step of the script, given how many calls this conversation has made; undefined: the turn ends. */
  function next(api: ToolCall['api'], prompt: string | undefined, done: number, outputs: string[], tool: string): Step | undefined {
    // Results arrive with the request after the call: attach them to the calls still waiting for one, in order.
    const open = calls.filter((c) => c.api === api && c.output === null);
    outputs.slice(-open.length || outputs.length).forEach((output, i) => {
      const call = open[i];
      if (call) call.output = output;
    });
    if (prompt === undefined) return undefined;
    const script = options.script(prompt);
    if (script.length === 0) problems.push(`the script found nothing to run in a ${api} prompt of ${prompt.length} characters`);
    const step = script[done];
    if (typeof step === 'string') calls.push({ api, tool, command: step, output: null });
    else if (step) calls.push({ api, tool: step.tool, command: JSON.stringify(step.input), output: null });
    return step;
  }

  function anthropic(res: ServerResponse, request: AnthropicRequest): void {
    const bash = request.tools?.find((t) => t.name === 'Bash');
    const prompt = bash ? turnPrompt(request.messages.flatMap((m) => textsOf(m.content))) : undefined;
    const results = request.messages.flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((c) => c.type === 'tool_result').map((c) => resultText(c.content)) : [],
    );
    const step = next('anthropic', prompt, results.length, results, 'Bash');
    const sse = startSse(res);
    const usage = { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    sse('message_start', {
      type: 'message_start',
      message: { id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model: request.model, content: [], stop_reason: null, usage },
    });
    if (step !== undefined) {
      const id = `toolu_${calls.length}`;
      const name = typeof step === 'string' ? 'Bash' : step.tool;
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id, name, input: {} },
      });
      const input = JSON.stringify(typeof step === 'string' ? { command: step, description: 'Write back to loopx' } : step.input);
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: input } });
      sse('content_block_stop', { type: 'content_block_stop', index: 0 });
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 20 },
      });
    } else {
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      const text = prompt ? 'Done: the turn is written back to loopx.' : 'OK';
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
      sse('content_block_stop', { type: 'content_block_stop', index: 0 });
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 10 },
      });
    }
    sse('message_stop', { type: 'message_stop' });
    res.end();
  }

  function openai(res: ServerResponse, request: OpenAiRequest): void {
    const input = Array.isArray(request.input) ? request.input : [];
    const shell = shellTool(request.tools ?? []);
    const prompt = shell
      ? turnPrompt(input.flatMap((item) => (item.type === 'message' || !item.type ? textsOf(item.content) : [])))
      : undefined;
    // Each result names the call it answers (`call_N`: the server's N-th call): attached by that id, not by order, so a
    // result Codex sends in another shape or order (an MCP tool's) never lands on another call.
    for (const item of input) {
      const n = /^call_(\d+)$/.exec(item.call_id ?? '')?.[1];
      const call = n && item.type?.endsWith('_output') ? calls[Number(n) - 1] : undefined;
      if (call && call.output === null) call.output = resultText(item.output);
    }
    const done = input.filter((i) => i.type === 'function_call' || i.type === 'local_shell_call' || i.type === 'custom_tool_call').length;
    const step = shell ? next('openai', prompt, done, [], shell.name) : undefined;
    const sse = startSse(res);
    const id = `resp_${Date.now()}`;
    const base = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      model: request.model,
      status: 'in_progress',
      output: [],
    };
    sse('response.created', { type: 'response.created', response: base });
    const item =
      step !== undefined && shell
        ? {
            type: 'function_call',
            id: `fc_${calls.length}`,
            call_id: `call_${calls.length}`,
            name: typeof step === 'string' ? shell.name : step.tool,
            // Codex offers an MCP server's tools inside a namespace (`mcp__loopx`): a call names both.
            ...(typeof step === 'string' ? {} : namespaceOf(request.tools ?? [], step.tool)),
            arguments: JSON.stringify(typeof step === 'string' ? shell.args(step) : step.input),
            status: 'completed',
          }
        : {
            type: 'message',
            id: `msg_${Date.now()}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: prompt ? 'Done: the turn is written back to loopx.' : 'OK', annotations: [] }],
          };
    sse('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item });
    sse('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 120,
    };
    sse('response.completed', { type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage } });
    res.end();
  }

  /**
   * OpenAI's Chat Completions wire (OpenCode's openai-compatible provider, Qwen Code): the shell tool by its shape, a
   * tool call streamed as one delta, results as `tool` messages naming the call's id; usage in the last chunk.
   */
  function chat(res: ServerResponse, request: ChatRequest): void {
    const shell = chatShellTool(request.tools ?? []);
    // A turn with no shell (Qwen Code under loopx's boundary) still offers tools: the loopx MCP server's, by the
    // names its host gives them (`mcp__loopx__loopx_ship`).
    const offered = (request.tools ?? []).flatMap((t) => (t.function ? [t.function.name] : []));
    const messages = request.messages ?? [];
    const prompt = offered.length ? turnPrompt(messages.filter((m) => m.role === 'user').flatMap((m) => textsOf(m.content))) : undefined;
    for (const m of messages) {
      const n = /^call_(\d+)$/.exec(m.tool_call_id ?? '')?.[1];
      const call = m.role === 'tool' && n ? calls[Number(n) - 1] : undefined;
      if (call && call.output === null) call.output = resultText(m.content);
    }
    const done = messages.filter((m) => m.role === 'assistant').reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
    const step = offered.length ? next('chat', prompt, done, [], shell?.name ?? '') : undefined;
    const call =
      step === undefined
        ? undefined
        : typeof step === 'string'
          ? shell && { name: shell.name, args: shell.args(step) }
          : { name: offered.find((n) => n === step.tool || n.endsWith(`__${step.tool}`)) ?? step.tool, args: step.input };
    const id = `chatcmpl_${Date.now()}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 0 } };
    const message = call
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 0,
              id: `call_${calls.length}`,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            },
          ],
        }
      : { role: 'assistant', content: prompt ? 'Done: the turn is written back to loopx.' : 'OK' };
    const finish = 'tool_calls' in message ? 'tool_calls' : 'stop';
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: request.model,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices, ...extra })}\n\n`);
    chunk([{ index: 0, delta: message, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: finish }]);
    chunk([], { usage });
    res.write('data: [DONE]\n\n');
    res.end();
  }

  /**
   * Gemini's wire (Gemini CLI with GOOGLE_GEMINI_BASE_URL): `functionCall` parts for the shell tool it offers
   * (`run_shell_command`) or any other it offers, results as `functionResponse` parts in order; usageMetadata on the
   * answer. A request without tools (a side call) gets a line of text.
   */
  function google(res: ServerResponse, request: GeminiRequest, stream: boolean): void {
    const contents = request.contents ?? [];
    const offered = (request.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name);
    const shell = offered.includes('run_shell_command') ? 'run_shell_command' : undefined;
    const prompt = shell
      ? turnPrompt(
          contents
            .filter((c) => c.role === 'user')
            .flatMap((c) => (c.parts ?? []).flatMap((p) => (typeof p.text === 'string' ? [p.text] : []))),
        )
      : undefined;
    const outputs = contents.flatMap((c) =>
      (c.parts ?? []).flatMap((p) => (p.functionResponse ? [resultText(p.functionResponse.response)] : [])),
    );
    const step = shell ? next('gemini', prompt, outputs.length, outputs, shell) : undefined;
    const parts =
      step === undefined
        ? [{ text: prompt ? 'Done: the turn is written back to loopx.' : 'OK' }]
        : [
            typeof step === 'string'
              ? { functionCall: { name: shell, args: { command: step, description: 'Write back to loopx' } } }
              : { functionCall: { name: step.tool, args: step.input } },
          ];
    const answer = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: 'loopx-scripted',
    };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(answer));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    res.end();
  }

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    requests,
    problems,
    outside,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

type Content = string | { type: string; text?: string; content?: unknown }[] | undefined;
interface AnthropicRequest {
  model: string;
  messages: { role: string; content: Content }[];
  tools?: { name: string }[];
}
interface OpenAiTool {
  type: string;
  name?: string;
  parameters?: { properties?: Record<string, unknown> };
  /** A namespace's own tools (Codex's MCP servers: `{type: 'namespace', name: 'mcp__loopx', tools: […]}`). */
  tools?: OpenAiTool[];
}

/** The namespace a tool is offered in, when it is not offered at the top level. */
function namespaceOf(tools: OpenAiTool[], name: string): { namespace?: string } {
  if (tools.some((t) => t.name === name)) return {};
  const holder = tools.find((t) => t.type === 'namespace' && t.tools?.some((inner) => inner.name === name));
  return holder?.name ? { namespace: holder.name } : {};
}
interface GeminiRequest {
  contents?: { role: string; parts?: { text?: string; functionResponse?: { name: string; response: unknown } }[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

interface ChatRequest {
  model: string;
  stream?: boolean;
  messages?: { role: string; content: Content; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { type: string; function?: { name: string; parameters?: { properties?: Record<string, unknown> } } }[];
}

/** The shell tool a Chat Completions client offers: OpenCode's `bash`, Qwen Code's `run_shell_command`, by its `command`. */
function chatShellTool(
  tools: NonNullable<ChatRequest['tools']>,
): { name: string; args(command: string): Record<string, unknown> } | undefined {
  const shell = tools.find(
    (t) => t.function && /^(bash|run_shell_command|shell)$/.test(t.function.name) && 'command' in (t.function.parameters?.properties ?? {}),
  );
  return shell?.function ? { name: shell.function.name, args: (command) => ({ command, description: 'Write back to loopx' }) } : undefined;
}

interface OpenAiRequest {
  model: string;
  input?: { type?: string; role?: string; content?: Content; output?: unknown; call_id?: string }[];
  tools?: OpenAiTool[];
}

/**
 * The shell tool Codex offers, and how to call it: the tools in the request decide (its releases have named and
 * shaped it differently: `shell` with an argv array, `shell_command` with a string, `exec_command` with `cmd`).
 */
function shellTool(tools: OpenAiTool[]): { name: string; args(command: string): Record<string, unknown> } | undefined {
  for (const tool of tools) {
    const props = tool.parameters?.properties ?? {};
    if (tool.type !== 'function' || !tool.name) continue;
    if (tool.name === 'exec_command' || 'cmd' in props) return { name: tool.name, args: (cmd) => ({ cmd }) };
    if (tool.name === 'shell_command') return { name: tool.name, args: (command) => ({ command }) };
    if (tool.name === 'shell') return { name: tool.name, args: (command) => ({ command: ['bash', '-lc', command] }) };
  }
  return undefined;
}

/** The turn's prompt among the conversation's texts: the one a loopx turn starts with. */
function turnPrompt(texts: string[]): string | undefined {
  return texts.find((t) => t.includes('# loopx turn ')) ?? undefined;
}

function textsOf(content: Content): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((c) => (typeof c.text === 'string' && (c.type === 'text' || c.type === 'input_text') ? [c.text] : []));
}

function resultText(content: unknown): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((c) => (typeof c === 'object' && c && 'text' in c ? String(c.text) : JSON.stringify(c))).join('\n');
  if (content && typeof content === 'object' && 'output' in content) return resultText((content as { output: unknown }).output);
  return JSON.stringify(content);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => done(body));
  });
}

function startSse(res: ServerResponse): (event: string, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
