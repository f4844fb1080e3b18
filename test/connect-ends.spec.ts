import { describe, expect, it } from 'vitest';
import { AWAITING_STATUSES, connectEndOfConsent, ConsentStatus } from '#libs/domain/consents';
import { funnelEndOf, outcomeOf } from '../libs/merchant-sdk/src/connect/consent-outcome.js';
import type { Consent } from '../libs/merchant-sdk/src/models.js';

/**
 * A connect attempt's end is filed twice, whichever comes first: by `<bff-connect>` in the user's browser,
 * and by the api at the bank callback (connectEndOfConsent). The two must file the same end, with the same
 * reason, for every status a consent can end in.
 */
describe('the connect funnel: the end the api files is the one the component files', () => {
  const ended = Object.values(ConsentStatus).filter((s) => !AWAITING_STATUSES.includes(s));

  it.each(ended)('%s', (status) => {
    const [event, reason] = funnelEndOf(outcomeOf({ id: 'c', status } as Consent));
    expect(connectEndOfConsent(status)).toEqual(reason === undefined ? { event } : { event, reason });
  });
});
