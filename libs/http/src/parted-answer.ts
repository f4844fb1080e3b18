import { Readable } from 'node:stream';

/**
 * An answer sent as the buffers it is made of, none of them copied: `kept`, bytes kept and served again
 * (a stored page's records), then `rest`, this answer's own end (its meta, with the tracing id). Copying a
 * 100 KiB page into a fresh buffer for every answer, and collecting it after, cost more CPU than the rest
 * of the read (issue 82). Fastify sends a stream payload as it is, after every onSend hook; the conditional
 * hook (conditional-get) tags it, hashing the kept parts once per kept buffer, and gives it its
 * Content-Length, which Fastify does not know for a stream.
 */
export class PartedAnswer extends Readable {
  readonly byteLength: number;

  constructor(
    readonly kept: readonly Buffer[],
    readonly rest: Buffer,
  ) {
    super();
    this.byteLength = kept.reduce((n, part) => n + part.length, rest.length);
  }

  override _read(): void {
    // An empty chunk would not end anything, but says nothing either.
    for (const part of this.kept) if (part.length > 0) this.push(part);
    this.push(this.rest);
    this.push(null);
  }

  /** The whole answer in one buffer: a copy, for what must hold it (a kept answer), never per read. */
  bytes(): Buffer {
    return Buffer.concat([...this.kept, this.rest]);
  }
}
