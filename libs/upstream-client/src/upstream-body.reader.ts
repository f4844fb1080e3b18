import type { Dispatcher } from 'undici';

/** A body past its cap: refused as it arrives, or at once by its declared length. */
export class BodyTooLarge extends Error {}

/**
 * Where a body's chunks are joined to be decoded, kept for the next body: a megabyte page joined in a
 * fresh Buffer costs its first-touch page faults each time (3 ms, measured). Joining and decoding are one
 * synchronous step, so one buffer serves every request of the process.
 */
let joined = Buffer.allocUnsafeSlow(0);

/** The body as text, refused past `cap` bytes. */
export async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      throw new BodyTooLarge();
    }
    chunks.push(chunk);
  }
  if (chunks.length === 1) return chunks[0].toString('utf8');
  if (joined.length < size) joined = Buffer.allocUnsafeSlow(Math.max(size, joined.length * 2));
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(joined, at);
  return joined.toString('utf8', 0, size);
}
