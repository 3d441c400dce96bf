import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The largest message the server reads. Every tool's input is bounded far below this (texts of at most 10,000
 * characters, 100 artifacts), so anything larger is refused unread.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over stdin/stdout, like the SDK's StdioServerTransport, except that a message over
 * MAX_MESSAGE_BYTES is skipped up to its newline and answered with an error (the SDK's transport closes on an
 * oversized message and the server goes deaf while it stays alive). Memory stays bounded while skipping.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** The first bytes of an oversized message, kept to find its id for the error answer. */
  private skipping: Buffer | null = null;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.write(message);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.onclose?.();
  }

  private readonly onEnd = (): void => void this.close();

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const newline = data.indexOf(10, start);
      const piece = data.subarray(start, newline === -1 ? data.length : newline);
      if (this.skipping === null) {
        if (this.size + piece.length > this.maxBytes) {
          this.skipping = Buffer.concat([...this.chunks, piece]).subarray(0, 4096);
          this.chunks = [];
          this.size = 0;
        } else {
          this.chunks.push(piece);
          this.size += piece.length;
        }
      }
      if (newline === -1) return;
      if (this.skipping !== null) this.refuseOversized(this.skipping);
      else this.deliver(Buffer.concat(this.chunks).toString('utf8'));
      this.skipping = null;
      this.chunks = [];
      this.size = 0;
      start = newline + 1;
    }
  };

  private deliver(text: string): void {
    const line = text.replace(/\r$/, '');
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error as Error);
      this.write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: not a JSON-RPC message' } });
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(head: Buffer): void {
    const id = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})/.exec(head.toString('utf8'))?.[1];
    this.onerror?.(new Error(`a message over ${this.maxBytes} bytes was skipped`));
    this.write({
      jsonrpc: '2.0',
      id: id === undefined ? null : JSON.parse(id),
      error: { code: -32600, message: `message too large: the limit is ${this.maxBytes} bytes (texts are at most 10,000 characters)` },
    });
  }

  private write(message: unknown): void {
    this.stdout.write(`${JSON.stringify(message)}\n`);
  }
}
