import { Buffer } from 'node:buffer';

/** A piece's size: under glibc's mmap threshold (128 KiB), so a freed piece's memory serves the next. */
export const PIECE_BYTES = 64 << 10;

/** A body written as pieces of UTF-8, and its length in bytes (the response's Content-Length). */
export interface BodyPieces {
  readonly pieces: readonly Buffer[];
  readonly bytes: number;
}

/**
 * A large body (a page of up to 1,000 transactions, a megabyte) written into pieces of PIECE_BYTES as its
 * text is made, and sent piece by piece. As one string, each page cost about three megabytes of memory
 * mapped afresh: its rope flattened to measure it, then copied into a buffer to write it, every 4 KiB
 * faulted in (12-15 µs a fault on the bench's machine). The sync bench's first sync made the sandbox take
 * 81,000 page faults that way, 10,000-14,000 in pieces; the walk of 6,500 records (`npm run bench --
 * --only sandbox-page`) took 48 ms instead of 78.
 */
export class JsonPieces {
  private readonly pieces: Buffer[] = [];
  private piece = Buffer.allocUnsafeSlow(PIECE_BYTES);
  private size = 0;
  private bytes = 0;

  add(text: string): void {
    // A UTF-16 code unit is at most three bytes of UTF-8.
    const room = text.length * 3;
    if (this.size + room > this.piece.length) {
      this.seal();
      this.piece = Buffer.allocUnsafeSlow(Math.max(PIECE_BYTES, room));
    }
    this.size += this.piece.write(text, this.size);
  }

  end(): BodyPieces {
    this.seal();
    return { pieces: this.pieces, bytes: this.bytes };
  }

  private seal(): void {
    if (this.size === 0) return;
    this.pieces.push(this.piece.subarray(0, this.size));
    this.bytes += this.size;
    this.size = 0;
  }
}
