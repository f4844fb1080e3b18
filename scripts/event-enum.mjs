// schema.prisma's MerchantEventType enum, made from the event catalogue (libs/domain/events/src/
// event-catalogue.ts), the one place an event's name is written. `npm run db:migration -- <name>` writes
// it before it diffs, so a new event's migration (ALTER TYPE … ADD VALUE) comes from the catalogue alone;
// test/event-enum.spec.ts fails while the two differ.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CATALOGUE = path.join(ROOT, 'libs', 'domain', 'events', 'src', 'event-catalogue.ts');

const DOC = [
  '/// Event types we emit to merchants; stored values are the wire names of docs/events.md. Written from',
  '/// the event catalogue by `npm run db:migration`, in the order Postgres holds them (a new one last).',
];
// The block with its doc comment: the doc lines directly above it belong to it.
const BLOCK = /((?:^\/\/\/.*\n)*)^enum MerchantEventType \{\n([^}]*)\}\n/m;

/** The catalogue's event names, in its order (Node strips the file's types; it imports nothing). */
export async function catalogueNames() {
  const catalogue = await import(CATALOGUE);
  return catalogue.MERCHANT_EVENT_TYPE_NAMES;
}

/** `consent.authorized` → `CONSENT_AUTHORIZED`: the value's identifier in Prisma's client. */
const identifier = (name) => name.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/**
 * `schema` with its enum holding `names`: the values it has keep their order (Postgres can only append),
 * the catalogue's new ones follow. A value the catalogue no longer has is refused: Postgres cannot drop
 * an enum value, and stored events carry it.
 */
export function withEventEnum(schema, names) {
  const match = BLOCK.exec(schema);
  if (!match) throw new Error('prisma/schema.prisma has no enum MerchantEventType');
  const held = [...match[2].matchAll(/^\s+\w+\s+@map\("([^"]+)"\)/gm)].map((m) => m[1]);
  const dropped = held.filter((name) => !names.includes(name));
  if (dropped.length > 0) {
    throw new Error(
      `The event catalogue no longer has ${dropped.join(', ')}, which merchant_event_type holds: ` +
        'an event type cannot be removed (Postgres keeps enum values; stored events carry them)',
    );
  }
  const values = [...held, ...names.filter((name) => !held.includes(name))];
  const width = Math.max(...values.map((name) => identifier(name).length));
  const lines = values.map((name) => `  ${identifier(name).padEnd(width)} @map("${name}")`);
  const block = [...DOC, 'enum MerchantEventType {', ...lines, '', '  @@map("merchant_event_type")', '}', ''];
  return schema.slice(0, match.index) + block.join('\n') + schema.slice(match.index + match[0].length);
}

/** schema.prisma as it should be for the catalogue as it is. */
export async function schemaWithCatalogue(schemaPath) {
  return withEventEnum(await readFile(schemaPath, 'utf8'), await catalogueNames());
}
