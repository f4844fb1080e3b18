/**
 * The connect funnel's vocabulary: what `<bff-connect>` reports of an attempt in a user's browser. One list,
 * in the funnel's order: the report's validator, the store's columns and the answer's fields come from it.
 */
export const CONNECT_STEPS = ['opened', 'searched', 'chose', 'sentToBank', 'returned'] as const;
export type ConnectStep = (typeof CONNECT_STEPS)[number];

/**
 * How an attempt ends; the first end reported stands (a report sent again, or a tab closed after its bank was
 * connected, changes nothing). `abandoned` is never reported: it is an attempt with no end, quiet for longer
 * than a user could still come back from the bank (CONNECT_IDLE_MS).
 */
export const CONNECT_ENDS = ['connected', 'declined', 'cancelled', 'failed', 'closed'] as const;
export type ConnectEnd = (typeof CONNECT_ENDS)[number];

/**
 * The ends the funnel counts an attempt under, each attempt once: as reported, `closed` as abandoned, and
 * `inProgress` while it has none.
 */
export const FUNNEL_ENDS = [
  'connected',
  'declined',
  'cancelled',
  'failed',
  'abandoned',
  'inProgress',
] as const;

/** A funnel row's counts, in the funnel's order: the steps reached, then the ends. */
export const FUNNEL_COUNTS = [...CONNECT_STEPS, ...FUNNEL_ENDS] as const;

/** What a report may say happened: a step reached, an end, or an error met (its `reason` says which). */
export const CONNECT_EVENTS = [...CONNECT_STEPS, ...CONNECT_ENDS, 'error'] as const;
export type ConnectEvent = (typeof CONNECT_EVENTS)[number];

/** The events that must name their reason: an error code, as the component's `failed` event carries it. */
export const CONNECT_EVENTS_WITH_REASON: readonly ConnectEvent[] = ['error', 'failed'];

/** A reason is a code (`CONSENT_REJECTED`, `NETWORK_ERROR`, …), never text a user typed. */
export const CONNECT_REASON = /^[A-Z][A-Z0-9_]{0,63}$/;

export const isConnectEnd = (event: ConnectEvent): event is ConnectEnd =>
  (CONNECT_ENDS as readonly string[]).includes(event);

/**
 * How an attempt ends when its consent does, as `<bff-connect>` files it (its funnelEndOf of outcomeOf): the
 * user said no at the bank (REJECTED) is declined; any other end but AUTHORIZED failed, `CONSENT_<STATUS>`.
 */
export function connectEndOfConsent(status: string): { event: ConnectEnd; reason?: string } {
  if (status === 'AUTHORIZED') return { event: 'connected' };
  if (status === 'REJECTED') return { event: 'declined' };
  return { event: 'failed', reason: `CONSENT_${status}` };
}
