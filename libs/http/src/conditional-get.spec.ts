import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '#libs/testing';
import { answerStartsWith, etagOf, splitAnswer } from './conditional-get.js';

const DATA_OPEN = Buffer.from('{"data":[');
const answerOf = (items: Buffer, id: string, meta: string) =>
  Buffer.concat([DATA_OPEN, items, Buffer.from(`],"meta":{"tracingId":"${id}",${meta}}}`)]);
const item = fc.record({ id: fc.uuid(), note: fc.string() }).map((o) => JSON.stringify(o));
const requestId = fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/);

describe('conditional GETs: the tag of an answer', () => {
  it('is the hash of the answer without its tracing id, whether or not its start was hashed before', async () => {
    await assertProperty(
      fc.property(
        fc.array(item, { maxLength: 20 }),
        fc.array(fc.tuple(requestId, fc.nat({ max: 5 })), { minLength: 1, maxLength: 6 }),
        (records, reads) => {
          // One page kept and served again, each time with another id and meta, as a stored page is.
          const items = Buffer.from(records.join(','));
          for (const [id, count] of reads) {
            const meta = `"count":${count}`;
            const plain = answerOf(items, id, meta);
            const remembered = answerOf(items, id, meta);
            answerStartsWith(remembered, [DATA_OPEN, items]);
            const expected = etagOf(
              Buffer.from(`{"data":[${records.join(',')}],"meta":{"tracingId":"`),
              Buffer.from(`",${meta}}}`),
            );
            expect(splitAnswer(plain, id)?.etag).toBe(expected);
            expect(splitAnswer(remembered, id)?.etag).toBe(expected);
          }
        },
      ),
      100,
    );
  });

  it('is never given to an answer that is not an envelope with this request’s id', () => {
    expect(splitAnswer(Buffer.from('{"data":[],"meta":{"tracingId":"a"}}'), 'b')).toBeUndefined();
    expect(splitAnswer(Buffer.from('[]'), 'a')).toBeUndefined();
  });
});
