import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MERCHANT_EVENT_TYPE_NAMES } from '#libs/domain/events';
import { catalogueNames, withEventEnum } from '../scripts/event-enum.mjs';
import { assertProperty } from './kit/index.js';

const SCHEMA = readFileSync(
  join(fileURLToPath(new URL('..', import.meta.url)), 'prisma', 'schema.prisma'),
  'utf8',
);

/** The enum's values as schema.prisma lists them, in order. */
const valuesOf = (schema: string) =>
  [
    .../^enum MerchantEventType \{\n([^}]*)\}/m.exec(schema)![1].matchAll(/^ {2}\w+ +@map\("([^"]+)"\)/gm),
  ].map((m) => m[1]);

/*
 * schema.prisma's MerchantEventType is made from the event catalogue (scripts/event-enum.mjs), so a new
 * event's enum value and migration come from its catalogue entry: `npm run db:migration -- <name>`.
 */
describe("schema.prisma's event types", () => {
  it('are the catalogue’s, as `npm run db:migration` writes them', async () => {
    expect(await catalogueNames()).toEqual(MERCHANT_EVENT_TYPE_NAMES);
    expect(withEventEnum(SCHEMA, MERCHANT_EVENT_TYPE_NAMES), 'run: npm run db:migration -- <name>').toBe(
      SCHEMA,
    );
  });

  it('keep the order Postgres holds and add new types last, in the catalogue’s order', async () => {
    const held = valuesOf(SCHEMA);
    const name = fc.stringMatching(/^[a-z]{1,12}\.[a-z_]{1,20}$/).filter((n) => !held.includes(n));
    await assertProperty(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), fc.integer({ min: 0, max: 40 }), (added, seed) => {
        // The catalogue in any order of its own: the stored order does not follow it.
        const catalogue = [...held, ...added].sort(
          (a, b) => ((a.length * seed) % 7) - ((b.length * seed) % 7),
        );
        const written = withEventEnum(SCHEMA, catalogue);
        expect(valuesOf(written)).toEqual([...held, ...catalogue.filter((n) => added.includes(n))]);
        expect(withEventEnum(written, catalogue)).toBe(written);
        // Everything outside the enum stays as it was.
        expect(written.replace(/enum MerchantEventType \{[^}]*\}/, '')).toBe(
          withEventEnum(SCHEMA, held).replace(/enum MerchantEventType \{[^}]*\}/, ''),
        );
      }),
      100,
    );
  });

  it('refuse a type the catalogue dropped: Postgres keeps it, and stored events carry it', () => {
    const dropped = MERCHANT_EVENT_TYPE_NAMES.filter((n) => n !== 'sync.failed');
    expect(() => withEventEnum(SCHEMA, dropped)).toThrow(/no longer has sync\.failed/);
  });
});
