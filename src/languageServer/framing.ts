import { Transform, type TransformCallback } from 'node:stream';

/** The largest message the server reads (a 1 MB goal file, JSON-escaped, with room to spare). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_HEADER_BYTES = 8 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
const HEADER_START = Buffer.from('Content-Length:');

/**
 * LSP framing checked before vscode-jsonrpc reads it, for the server on stdio (other editors; VS Code uses IPC).
 * jsonrpc's reader goes deaf after one frame with a Content-Length that is missing, not a number, negative or wrong:
 * it takes the rest of the stream as headers and never answers again, `shutdown` included. Here a bad frame is
 * dropped, said on stderr (`onDropped`), and reading resyncs at the next `Content-Length:` header, so the messages
 * after it are answered. A body that is not JSON (a length too small) is dropped the same way; a length too large
 * shows when the next frame's header appears inside the body while what comes before it is a whole JSON message.
 * Good frames pass through unchanged.
 */
export class FramingFilter extends Transform {
  private buffer = Buffer.alloc(0);

  constructor(private readonly onDropped: (why: string) => void = (why) => process.stderr.write(`loopx language server: ${why}\n`)) {
    super();
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    this.buffer = Buffer.concat([this.buffer, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
    this.drain();
    done();
  }

  private drain(): void {
    for (;;) {
      const headerEnd = this.buffer.indexOf(HEADER_END);
      if (headerEnd < 0) {
        if (this.buffer.length > MAX_HEADER_BYTES) this.resync(1, 'a header without its end (dropped)');
        else return;
        continue;
      }
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const length = /^Content-Length:[ \t]*(\S*)[ \t]*$/im.exec(header)?.[1];
      const bodyStart = headerEnd + HEADER_END.length;
      if (length === undefined || !/^\d+$/.test(length) || Number(length) > MAX_BODY_BYTES) {
        this.resync(1, `a message with ${length === undefined ? 'no Content-Length' : `Content-Length "${length}"`} (dropped)`);
        continue;
      }
      const bodyEnd = bodyStart + Number(length);
      if (this.buffer.length < bodyEnd) {
        // A length too large: the next frame's header is already inside what it claims as its body.
        const next = this.buffer.indexOf(HEADER_START, bodyStart);
        if (next > bodyStart && isJson(this.buffer.subarray(bodyStart, next))) {
          this.resync(next, `a message whose Content-Length ${length} is larger than its body (dropped)`);
          continue;
        }
        return;
      }
      const body = this.buffer.subarray(bodyStart, bodyEnd);
      if (!isJson(body)) {
        this.resync(bodyStart, `a message whose body is not JSON (a Content-Length ${length} too small?) (dropped)`);
        continue;
      }
      this.push(this.buffer.subarray(0, bodyEnd));
      this.buffer = this.buffer.subarray(bodyEnd);
    }
  }

  /** Drops everything before the next `Content-Length:` at or after `from` (keeping the start of one cut by a chunk). */
  private resync(from: number, why: string): void {
    this.onDropped(why);
    const next = this.buffer.indexOf(HEADER_START, from);
    this.buffer = this.buffer.subarray(next >= 0 ? next : this.buffer.length - partialHeaderAtEnd(this.buffer));
  }
}

/** How many bytes at the end of `buffer` are the beginning of `Content-Length:` (a header the next chunk completes). */
function partialHeaderAtEnd(buffer: Buffer): number {
  for (let k = Math.min(HEADER_START.length - 1, buffer.length); k > 0; k--)
    if (buffer.subarray(buffer.length - k).equals(HEADER_START.subarray(0, k))) return k;
  return 0;
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
