import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runInContext } from '#libs/context';
import { assertProperty } from '#libs/testing';
import { etagOf, splitAnswer, splitPartedAnswer } from './conditional-get.js';
import { envelopeBytes } from './openapi.js';

const item = fc.record({ id: fc.uuid(), note: fc.string() }).map((o) => JSON.stringify(o));
const requestId = fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/);

describe('conditional GETs: the tag of an answer', () => {
  it('is the hash of the answer without its tracing id, though a kept page’s records are hashed once', async () => {
    await assertProperty(
      fc.property(
        fc.array(item, { maxLength: 20 }),
        fc.array(fc.tuple(requestId, fc.nat({ max: 5 })), { minLength: 1, maxLength: 6 }),
        (records, reads) => {
          // One page kept and served again, each time with another id and meta, as a stored page is.
          const items = Buffer.from(records.join(','));
          for (const [id, count] of reads) {
            const answer = runInContext({ requestId: id }, () => envelopeBytes(items, { count }));
            const bytes = answer.bytes();
            const text = bytes.toString('utf8');
            const at = text.lastIndexOf(`"tracingId":"${id}"`) + '"tracingId":"'.length;
            const whole = etagOf(text.slice(0, at), text.slice(at + id.length));
            expect(JSON.parse(text)).toEqual({
              data: records.map((r) => JSON.parse(r) as unknown),
              meta: { tracingId: id, count },
            });
            const parted = splitPartedAnswer(answer, id);
            expect(parted?.etag).toBe(whole);
            expect(splitAnswer(bytes, id)?.etag).toBe(whole);
            // The same page served once, as text: the same bytes, the same tag.
            const once = runInContext({ requestId: id }, () => envelopeBytes(records.join(','), { count }));
            expect(once).toBe(text);
            expect(splitAnswer(once, id)?.etag).toBe(whole);
            // What a kept answer keeps: the bytes around the id.
            const split = parted?.whole();
            expect(split && Buffer.concat([split.head, Buffer.from(id), split.tail]).equals(bytes)).toBe(
              true,
            );
          }
        },
      ),
      100,
    );
  });

  it('sends a kept page’s records as they are, never a copy of them', () => {
    const items = Buffer.from('{"id":"a"},{"id":"b"}');
    const answer = runInContext({ requestId: 'r' }, () => envelopeBytes(items, { count: 2 }));
    expect(answer.kept.some((part) => part === items)).toBe(true);
    expect(answer.byteLength).toBe(answer.bytes().length);
  });

  it('is never given to an answer that is not an envelope with this request’s id', () => {
    expect(splitAnswer(Buffer.from('{"data":[],"meta":{"tracingId":"a"}}'), 'b')).toBeUndefined();
    expect(splitAnswer(Buffer.from('[]'), 'a')).toBeUndefined();
    expect(splitAnswer('{"data":[],"meta":{"tracingId":"a"}}', 'b')).toBeUndefined();
  });
});
