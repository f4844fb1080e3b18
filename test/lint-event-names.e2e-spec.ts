import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * eslint's events/event-name rule, proven on real files of the tree: a merchant event's name written
 * outside the catalogue is refused unless the compiler holds it to the catalogue's type.
 */
describe('lint: an event name is written only in the catalogue', () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const refusals = async (filePath: string, source: string) => {
    const [result] = await eslint.lintText(`${source}\n`, { filePath });
    // A source that does not parse would pass unrefused: it must parse.
    expect(result.messages.filter((m) => m.fatal)).toEqual([]);
    return result.messages.filter((m) => m.ruleId === 'events/event-name').map((m) => m.message);
  };
  const CATALOGUE_TYPE = "import type { MerchantEventType } from './event-catalogue.js';\n";

  it.each([
    ['a console word', 'apps/api/console/ui.js', "export const WORDS = { 'sync.failed': 'A sync failed' };"],
    ['a list of names', 'apps/api/src/events/event-types.ts', "export const NAMES = ['consent.authorized'];"],
    [
      'a name in SQL',
      'libs/domain/events/src/event-delivery.statements.ts',
      "export const SQL = `SELECT 1 FROM merchant_events WHERE type = 'payment.failed'`;",
    ],
    [
      'the test event',
      'libs/domain/events/src/event-delivery.service.ts',
      "export const TEST = 'endpoint.test';",
    ],
  ])('refuses %s', async (_what, filePath, source) => {
    expect((await refusals(filePath, source)).join('\n')).toContain('merchant event');
  });

  it.each([
    ['a typed constant', `${CATALOGUE_TYPE}export const T: MerchantEventType = 'payment.failed';`],
    [
      'a comparison with a typed value',
      `${CATALOGUE_TYPE}export const isFailed = (t: MerchantEventType) => t === 'sync.failed';`,
    ],
    [
      'a return of the catalogue type',
      `${CATALOGUE_TYPE}export const first = (): MerchantEventType | null => 'consent.authorized';`,
    ],
    ['prose that mentions one', "export const NOTE = 'sent before consent.expired, never after';"],
  ])('allows %s', async (_what, source) => {
    expect(await refusals('libs/domain/events/src/events-list.service.ts', source)).toEqual([]);
  });
});
