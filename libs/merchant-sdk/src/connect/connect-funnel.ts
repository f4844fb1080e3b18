import { newIdempotencyKey } from '../idempotency.js';
import type { ConnectReport } from '../models.js';

type Event = ConnectReport['event'];
type Step = Extract<Event, 'searched' | 'chose' | 'sentToBank' | 'returned'>;
type End = Extract<Event, 'connected' | 'declined' | 'cancelled' | 'failed' | 'closed'>;

/** Sends one report; `keepalive` for one sent as the page goes. */
export type SendReport = (report: ConnectReport, keepalive: boolean) => Promise<void>;

/**
 * The component's side of the connect funnel (GET /v1/insights/connect-funnel): an attempt opens when the
 * component first shows its banks, or at the user's first move after an attempt ended; each step is
 * reported once, and the attempt's end once. Nothing personal goes: no search text, no credentials, no
 * user id; the session token says whose attempt it is.
 *
 * Back from the bank, the page is new and knows only the consent: its reports name the attempt by it.
 * Reports are sent and not waited for, and a lost one is dropped: it costs a figure, never the user's
 * connection (the API files them in any order, any number of times).
 */
export class ConnectFunnel {
  #attempt?: { id: string } | { consentId: string };
  #reported = new Set<Event>();
  /** Off to the bank's website: the page going is not the user closing it. */
  #leaving = false;

  constructor(private readonly send: SendReport) {}

  /** A new attempt, unless one is open. */
  open(): void {
    if (this.#attempt) return;
    this.#attempt = { id: newIdempotencyKey() };
    this.#reported.clear();
    this.#leaving = false;
    this.#report('opened');
  }

  /** The page is back from the bank with this consent: the attempt that made it goes on here. */
  resume(consentId: string): void {
    this.#attempt = { consentId };
    this.#reported.clear();
    this.#report('returned');
  }

  /** A step reached (the user's move opens an attempt when none is). */
  step(step: Step, details: { institutionId?: string; consentId?: string } = {}): void {
    if (!this.#attempt && (step === 'searched' || step === 'chose')) this.open();
    if (step === 'chose' && details.institutionId) this.#reported.delete('chose');
    this.#report(step, details);
  }

  /** The user is sent to the bank's website: reported so that it outlives the page. */
  leaveForBank(institutionId: string, consentId: string): void {
    this.#leaving = true;
    this.#report('sentToBank', { institutionId, consentId }, true);
  }

  /** An error the user may get past (a wrong password, a code mistyped). */
  error(reason: string): void {
    this.#report('error', { reason }, false, true);
  }

  end(end: End, reason?: string): void {
    this.#report(end, reason ? { reason } : {});
    this.#attempt = undefined;
  }

  /** While the component is on the page: the page hidden for good (closed, left) closes the attempt. */
  watchPage(): void {
    window.addEventListener('pagehide', this.#pageHidden);
  }

  /** The component taken off the page: its open attempt ends closed. */
  unwatchPage(): void {
    window.removeEventListener('pagehide', this.#pageHidden);
    this.#closed();
  }

  // A page kept in the back-forward cache (`persisted`) may be shown again, the attempt with it.
  #pageHidden = (event: PageTransitionEvent) => {
    if (!event.persisted) this.#closed();
  };

  #closed(): void {
    if (!this.#attempt || this.#leaving) return;
    this.#report('closed', {}, true);
    this.#attempt = undefined;
  }

  #report(event: Event, details: Omit<ConnectReport, 'event'> = {}, keepalive = false, again = false) {
    const attempt = this.#attempt;
    if (!attempt || (this.#reported.has(event) && !again)) return;
    this.#reported.add(event);
    const name = 'id' in attempt ? { attemptId: attempt.id } : { consentId: attempt.consentId };
    // A back-from-the-bank report names the attempt by its consent: it carries no other.
    const rest = 'id' in attempt ? details : { ...details, consentId: undefined };
    void this.send({ ...rest, ...name, event }, keepalive).catch(() => undefined);
  }
}
