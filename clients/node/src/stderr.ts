/**
 * The child's stderr, when piped: keeps a bounded tail (the last 64 KiB of UTF-8, cut only
 * between characters) for close errors and `stderrTail`, passes each chunk to `onText`, and
 * tells when the stream ended.
 */

import type { Readable } from 'node:stream';

export const STDERR_TAIL_BYTES = 64 * 1024;

export class StderrTail {
  /** Decoded chunks, oldest first, and the UTF-8 size of each (measured once, on arrival). */
  private chunks: string[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  /** Resolves once stderr ended or closed; at once if it is not piped. */
  readonly done: Promise<void>;

  constructor(
    stderr: Readable | null,
    onText: (text: string) => void,
    private readonly maxBytes = STDERR_TAIL_BYTES,
  ) {
    if (stderr) {
      // The stream's decoder keeps a character split across chunks whole.
      stderr.setEncoding('utf8');
      stderr.on('data', (text: string) => {
        this.push(text);
        onText(text);
      });
    }
    this.done = stderr
      ? new Promise<void>((resolve) => {
          stderr.once('end', resolve);
          stderr.once('close', resolve);
        })
      : Promise.resolve();
  }

  get text(): string {
    return this.chunks.join('');
  }

  /** Appends `text`, then drops the oldest bytes beyond the bound: whole chunks, then the front of one. */
  private push(text: string): void {
    const size = Buffer.byteLength(text, 'utf8');
    this.chunks.push(text);
    this.sizes.push(size);
    this.bytes += size;
    while (this.bytes > this.maxBytes) {
      const excess = this.bytes - this.maxBytes;
      const first = this.sizes[0]!;
      if (first <= excess) {
        this.chunks.shift();
        this.sizes.shift();
        this.bytes -= first;
        continue;
      }
      const [index, dropped] = cutAfterBytes(this.chunks[0]!, excess);
      this.chunks[0] = this.chunks[0]!.slice(index);
      this.sizes[0] = first - dropped;
      this.bytes -= dropped;
    }
  }
}

/**
 * The first index of `text` at or past `bytes` bytes of UTF-8 that starts a character, and
 * how many bytes lie before it. Walks only the part being dropped, and never splits a
 * surrogate pair (a 4-byte character).
 */
function cutAfterBytes(text: string, bytes: number): [index: number, dropped: number] {
  let i = 0;
  let dropped = 0;
  while (dropped < bytes && i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      dropped += 1;
      i += 1;
    } else if (c < 0x800) {
      dropped += 2;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        dropped += 4;
        i += 2;
      } else {
        dropped += 3; // a lone surrogate: Buffer.byteLength counts it as U+FFFD
        i += 1;
      }
    } else {
      dropped += 3;
      i += 1;
    }
  }
  return [i, dropped];
}
