/**
 * Reading the supervisor's stdout: LSP `Content-Length` frames in, messages out,
 * synchronously as bytes arrive; output that is not a frame is a protocol error.
 */

import type { Readable } from 'node:stream';
import {
  AbstractMessageReader,
  type DataCallback,
  type Disposable,
  type Message,
  type MessageReader,
} from 'vscode-jsonrpc/node';

/** Longest header section we wait for before calling the output garbage. */
const MAX_HEADER_BYTES = 8 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
/** RFC 9110 token characters: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QUOTE_CHARS = 200;

/**
 * LSP framing (`Content-Length` headers) over the child's stdout. Unlike vscode-jsonrpc's
 * StreamMessageReader, which decodes on later ticks, it hands every message over
 * synchronously as its bytes arrive, so once stdout ends every message read is already
 * queued in the connection (see `onEnd`). Anything that is not a frame — a wrapper's banner,
 * a stray print — fails at once with an error quoting the bytes, instead of waiting forever
 * for a header end that never comes.
 */
export class FramedMessageReader extends AbstractMessageReader implements MessageReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private bodyLength = -1;
  private failed = false;
  private ended = false;

  /** `onEnd` runs once stdout has ended, after the last message was handed over. */
  constructor(
    private readonly stream: Readable,
    private readonly onEnd: (callback: DataCallback, truncated: number) => void,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer): void => this.onData(chunk, callback);
    const onEnd = (): void => {
      if (this.ended) return;
      this.ended = true;
      this.onEnd(callback, this.failed ? 0 : this.size);
      this.fireClose();
    };
    this.stream.on('data', onData);
    this.stream.on('end', onEnd);
    this.stream.on('close', onEnd);
    this.stream.on('error', onEnd); // a broken pipe is the end of the output too
    return {
      dispose: () => {
        this.stream.off('data', onData);
        this.stream.off('end', onEnd);
        this.stream.off('close', onEnd);
        this.stream.off('error', onEnd);
      },
    };
  }

  private onData(chunk: Buffer, callback: DataCallback): void {
    if (this.failed) return; // the stream is unframed from here on; the owner kills the child
    this.chunks.push(chunk);
    this.size += chunk.length;
    for (;;) {
      let message: Message | undefined;
      try {
        message = this.next();
      } catch (err) {
        this.failed = true;
        this.chunks = [];
        this.size = 0;
        this.fireError(err);
        return;
      }
      if (message === undefined) return;
      callback(message); // outside the try: a connection error is not a framing error
    }
  }

  /** The next complete message, or undefined until more bytes arrive; throws on garbage. */
  private next(): Message | undefined {
    if (this.bodyLength < 0) {
      const buf = this.flatten();
      const end = buf.indexOf(HEADER_END);
      if (end < 0) {
        checkHeaders(buf, false);
        return undefined;
      }
      this.bodyLength = checkHeaders(buf.subarray(0, end), true);
      this.keep(buf.subarray(end + HEADER_END.length));
    }
    if (this.size < this.bodyLength) return undefined;
    const buf = this.flatten();
    const body = buf.subarray(0, this.bodyLength);
    this.keep(buf.subarray(this.bodyLength));
    this.bodyLength = -1;
    return parseBody(body);
  }

  private flatten(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0]!;
  }

  private keep(rest: Buffer): void {
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
  }
}

/**
 * Checks a header section (`complete`), or the start of one, and returns its Content-Length
 * (or -1 while incomplete). Fails as soon as the bytes cannot be the start of a header, so
 * a banner line without `\r\n\r\n` after it is caught at once.
 */
function checkHeaders(raw: Buffer, complete: boolean): number {
  const text = raw.toString('latin1');
  const garbage = (why: string): Error =>
    new Error(`hermes-stdio wrote ${why} on stdout, not an LSP-framed JSON-RPC message: ${quote(raw)}`);
  if (!complete && raw.length > MAX_HEADER_BYTES) throw garbage(`${raw.length} bytes without a header end`);
  const lines = text.split('\r\n');
  let length = -1;
  lines.forEach((line, i) => {
    const partial = !complete && i === lines.length - 1;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    // A partial last line may still be a name being written, or end in the '\r' of '\r\n'.
    const nameSoFar = partial && colon < 0 ? name.replace(/\r$/, '') : name;
    if ((nameSoFar !== '' || !partial) && !TOKEN.test(nameSoFar)) throw garbage('unexpected output');
    if (colon < 0) {
      if (!partial) throw garbage('a header line without a colon');
      return;
    }
    if (/[\r\n]/.test(line.slice(colon + 1).replace(/\r$/, ''))) throw garbage('unexpected output');
    if (!partial && name.toLowerCase() === 'content-length') {
      const value = line.slice(colon + 1).trim();
      if (!/^\d+$/.test(value)) throw garbage('a bad Content-Length');
      length = Number(value);
    }
  });
  if (complete && length < 0) throw garbage('a header without Content-Length');
  return length;
}

function parseBody(body: Buffer): Message {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new Error(`hermes-stdio sent a message body that is not JSON (${(err as Error).message}): ${quote(body)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`hermes-stdio sent a message that is not a JSON object: ${quote(body)}`);
  }
  return value as Message;
}

function quote(bytes: Buffer): string {
  const text = bytes.toString('utf8', 0, Math.min(bytes.length, QUOTE_CHARS * 4));
  const cut = text.slice(0, QUOTE_CHARS);
  return JSON.stringify(cut) + (cut.length < text.length || bytes.length > QUOTE_CHARS * 4 ? '…' : '');
}
