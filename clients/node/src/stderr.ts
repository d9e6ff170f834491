/**
 * The child's stderr, when piped: keeps a bounded tail (the last ~64 KiB) for close
 * errors and `stderrTail`, passes each chunk to `onText`, and tells when the stream ended.
 */

import type { Readable } from 'node:stream';

const STDERR_TAIL_BYTES = 64 * 1024;

export class StderrTail {
  private chunks: string[] = [];
  private bytes = 0;
  /** Resolves once stderr ended or closed; at once if it is not piped. */
  readonly done: Promise<void>;

  constructor(stderr: Readable | null, onText: (text: string) => void) {
    if (stderr) {
      stderr.setEncoding('utf8');
      stderr.on('data', (text: string) => {
        this.chunks.push(text);
        this.bytes += text.length;
        while (this.bytes > STDERR_TAIL_BYTES && this.chunks.length > 1) {
          this.bytes -= this.chunks.shift()!.length;
        }
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
}
