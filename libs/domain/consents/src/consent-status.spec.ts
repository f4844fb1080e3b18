import { describe, expect, it } from 'vitest';
import {
  allowedFrom,
  canStart,
  canTransition,
  CONSENT_TRANSITIONS,
  ConsentStatus,
  type ConsentTransition,
  endsIn,
  parseConsentStatus,
} from './consent-status.js';

const S = ConsentStatus;
const ALL = Object.values(S);

describe('consent transitions', () => {
  it('authorises only a consent that is still awaiting the user or the bank', () => {
    for (const from of [
      S.AwaitingAuthorisation,
      S.AwaitingReauthorisation,
      S.AwaitingScaMethod,
      S.AwaitingScaCode,
    ]) {
      expect(canTransition('authorise', from, S.Authorised)).toBe(true);
    }
    for (const from of [S.Authorised, S.Revoked, S.Expired, S.Rejected, S.Failed]) {
      expect(canTransition('authorise', from, S.Authorised)).toBe(false);
    }
  });

  it('marks a consent gone only while it is authorised, and only as expired, revoked or consumed', () => {
    expect(allowedFrom('gone')).toEqual([S.Authorised]);
    expect(canTransition('gone', S.Authorised, S.Expired)).toBe(true);
    expect(canTransition('gone', S.Authorised, S.Consumed)).toBe(true);
    // A re-authorisation that already replaced the token is not undone by a late failure of the old one.
    expect(canTransition('gone', S.AwaitingReauthorisation, S.Expired)).toBe(false);
    expect(canTransition('gone', S.Authorised, S.Rejected)).toBe(false);
    expect(canTransition('gone', S.Authorised, S.Authorised)).toBe(false);
  });

  it('fails only an authorisation in progress: a late callback cannot fail an authorised consent', () => {
    expect(canTransition('fail', S.AwaitingAuthorisation, S.Rejected)).toBe(true);
    expect(canTransition('fail', S.AwaitingScaCode, S.Failed)).toBe(true);
    expect(canTransition('fail', S.Authorised, S.Failed)).toBe(false);
    expect(canTransition('fail', S.Revoked, S.Failed)).toBe(false);
    expect(canTransition('fail', S.AwaitingAuthorisation, S.Authorised)).toBe(false);
  });

  it('revokes from anywhere but revoked, and nothing leaves revoked', () => {
    expect(ALL.filter((from) => canTransition('revoke', from, S.Revoked))).toEqual(
      ALL.filter((s) => s !== S.Revoked),
    );
    for (const transition of Object.keys(CONSENT_TRANSITIONS) as ConsentTransition[]) {
      for (const to of ALL) expect(canTransition(transition, S.Revoked, to)).toBe(false);
    }
  });

  it('renews only a consent still authorised (or awaiting its renewal): an ended one is connected again', () => {
    expect(canTransition('requestReauthorisation', S.Authorised, S.AwaitingReauthorisation)).toBe(true);
    expect(
      canTransition('requestReauthorisation', S.AwaitingReauthorisation, S.AwaitingReauthorisation),
    ).toBe(true);
    expect(canTransition('updatePreAuthorisation', S.Authorised, S.AwaitingAuthorisation)).toBe(true);
    expect(canTransition('updatePreAuthorisation', S.AwaitingAuthorisation, S.AwaitingAuthorisation)).toBe(
      true,
    );
    for (const ended of [S.Expired, S.Revoked, S.Rejected, S.Failed, S.Consumed, S.Invalid]) {
      expect(canStart('requestReauthorisation', ended), ended).toBe(false);
      expect(canStart('updatePreAuthorisation', ended), ended).toBe(false);
    }
    expect(canTransition('requestReauthorisation', S.AwaitingScaCode, S.AwaitingReauthorisation)).toBe(false);
    expect(canStart('requestReauthorisation', S.AwaitingAuthorisation)).toBe(false);
  });

  it('moves the embedded flow forward only: method, code, then the bank', () => {
    expect(canTransition('advanceEmbedded', S.AwaitingScaMethod, S.AwaitingScaCode)).toBe(true);
    expect(canTransition('advanceEmbedded', S.AwaitingScaCode, S.AwaitingAuthorisation)).toBe(true);
    expect(canTransition('advanceEmbedded', S.AwaitingAuthorisation, S.AwaitingScaCode)).toBe(false);
    expect(canTransition('advanceEmbedded', S.Authorised, S.AwaitingScaCode)).toBe(false);
  });

  it('names only statuses of the closed set, and every transition ends somewhere it can start from or is final', () => {
    for (const rule of Object.values(CONSENT_TRANSITIONS)) {
      for (const s of [...rule.from, ...rule.to]) expect(ALL).toContain(s);
    }
    expect(endsIn('authorise', S.Authorised)).toBe(true);
    expect(endsIn('authorise', S.Expired)).toBe(false);
  });

  it('reads an upstream status word only when it is one of ours', () => {
    expect(parseConsentStatus('AUTHORIZED')).toBe(S.Authorised);
    expect(parseConsentStatus('AWAITING_DECOUPLED_AUTHORIZATION')).toBeUndefined();
    expect(parseConsentStatus(undefined)).toBeUndefined();
    expect(parseConsentStatus('authorized')).toBeUndefined();
  });
});
