import { type BffClient, type BffClientOptions, createBffClient } from '../bff-client.js';
import { BffError } from '../errors.js';
import type { Consent, Institution } from '../models.js';
import { BankSearch } from './bank-search.js';
import { ConnectAttributes } from './connect-attributes.js';
import { h } from './connect-dom.js';
import { ConnectFunnel } from './connect-funnel.js';
import { bankReturnOf, forgetBankReturn } from './connect-return.js';
import { CONNECT_STYLES } from './connect-styles.js';
import { AWAITING, type ConnectError, connectErrorOf, originNotAllowed } from './connect-types.js';
import { bankView, errorParts, outcomeView, progressView, resultView, type View } from './connect-views.js';
import { funnelEndOf, type Outcome, outcomeOf, waitForConsent } from './consent-outcome.js';
import { credentialsStep, type EmbeddedHost } from './embedded-flow.js';

// Kept whole: the element's one state (stage, busy, the consent under way); its parts are in its imports.

/** The API's embedded poll gives up after 2 minutes; a redirect's return is settled already, or nearly. */
const EMBEDDED_TIMEOUT_MS = 150_000;
const RETURN_TIMEOUT_MS = 30_000;

/**
 * `<bff-connect>`: connects a user's bank for account data, in the redirect flow (the bank's website,
 * then back to `return-url`) or the embedded flow (credentials, SCA method and code, in place).
 *
 * Attributes (and properties): `base-url` (`baseUrl`), `session-token` (`sessionToken`: a property set is
 * never written to the attribute), `user-id` (`userId`), `return-url` (`returnUrl`; default this page
 * without its query), `country`, `institution-id` (`institutionId`, to preselect a bank). Property only:
 * `fetch`, the fetch its client sends with (as `createBffClient`'s option; set it before the element goes
 * on the page), for a page that logs or traces its calls.
 *
 * Events (`CustomEvent`, bubbling and composed): `connected` `{ consent }`, `failed`
 * `{ consent?, error: { code, message, tracingId? } }`, `cancelled` `{ consent? }`.
 *
 * Styling, CSS custom properties: `--bff-connect-accent`, `--bff-connect-accent-text`,
 * `--bff-connect-font`, `--bff-connect-font-size`, `--bff-connect-radius`, `--bff-connect-background`,
 * `--bff-connect-foreground`, `--bff-connect-border`, `--bff-connect-muted`, `--bff-connect-error`,
 * `--bff-connect-spacing`. Parts: `container`, `heading`, `label`, `hint`, `input`, `search`, `list`,
 * `institution`, `institution-name`, `institution-flows`, `form`, `actions`, `button`, `button-primary`,
 * `progress`, `status`, `error`.
 */
export class BffConnectElement extends ConnectAttributes {
  #stage: HTMLElement;
  #status: HTMLElement;
  #error: HTMLElement;
  #client?: { baseUrl: string; bff: BffClient };
  /** The fetch the element's client sends with; the global one when unset. */
  fetch?: BffClientOptions['fetch'];
  #started = false;
  #busy = false;
  #life = new AbortController();
  #institution?: Institution;
  #consentId?: string;
  #search = new BankSearch({
    bff: () => this.#bff,
    country: () => this.country,
    show: (picker, moveFocus) => this.#show(picker, moveFocus),
    searched: () => this.#funnel.step('searched'),
    choose: (bank) => this.#choose(bank, true),
    found: (text) => this.#say(text, true),
    failed: (error) => this.#failure(error),
    gone: () => this.#life.signal.aborted,
  });
  #funnel = new ConnectFunnel((report, keepalive) =>
    this.#bff.insights.reportConnectStep(report, { keepalive }),
  );

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    this.#stage = h('div', { part: 'container' });
    this.#status = h('p', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite' });
    this.#error = h('div', { class: 'error', part: 'error', role: 'alert', 'aria-live': 'assertive' });
    root.append(h('style', {}, CONNECT_STYLES), this.#stage, this.#error, this.#status);
  }

  protected attached(): void {
    if (this.#life.signal.aborted) this.#life = new AbortController();
    this.#funnel.watchPage();
    this.configured();
  }

  protected detached(): void {
    this.#funnel.unwatchPage();
    this.#life.abort();
    this.#search.stop();
    this.#started = this.#busy = false;
  }

  /** Starts once it is on the page and has the API, a session and a user. */
  protected configured(): void {
    if (this.#started || !this.isConnected || !this.baseUrl || !this.sessionToken || !this.userId) return;
    this.#started = true;
    this.#run(async () => {
      if (!(await this.#originAllowed())) return;
      const back = bankReturnOf(window.location);
      if (back) return this.#returnFromBank(back.consentId, back.error);
      this.#funnel.open();
      if (this.institutionId) await this.#preselect(this.institutionId);
      else this.#showPicker(false);
    });
  }

  /**
   * Whether the api will let this page read its answers: `/v1/me` (readable from any origin) says which
   * origins the merchant allows. A page on another one says so, for its developer, instead of failing on
   * CORS with a network error at the first real call.
   */
  async #originAllowed(): Promise<boolean> {
    const me = await this.#bff.me();
    if (me.originAllowed !== false) return true;
    const error = originNotAllowed(window.location.origin, me.frontendOrigins);
    this.#showError(error);
    this.#emit('failed', { error });
    return false;
  }

  /** The client, with the token read at each call. */
  get #bff(): BffClient {
    const baseUrl = this.baseUrl;
    if (this.#client?.baseUrl !== baseUrl) {
      const token = () => this.sessionToken ?? '';
      this.#client = { baseUrl, bff: createBffClient({ baseUrl, token, fetch: this.fetch }) };
    }
    return this.#client.bff;
  }

  #show(view: View, moveFocus: boolean) {
    this.#stage.replaceChildren(view.content);
    if (moveFocus) view.focus.focus();
  }

  /** Says `text` in the status line; `clearError` when it is news that ends any error shown. */
  #say(text: string, clearError = false) {
    if (clearError) this.#showError(undefined);
    this.#status.textContent = text;
  }

  #showError(error: ConnectError | undefined) {
    this.#error.replaceChildren(...errorParts(error));
  }

  #emit(type: Outcome['type'], detail: Outcome['detail']) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  /** One user action at a time; its failure is shown, and reported when the user cannot fix it here. */
  #run(task: () => Promise<void>): void {
    if (this.#busy) return;
    this.#busy = true;
    this.#stage.setAttribute('aria-busy', 'true');
    this.#showError(undefined);
    const life = this.#life.signal;
    void task()
      .catch((error: unknown) => (life.aborted ? undefined : this.#failure(error)))
      .finally(() => {
        this.#busy = false;
        this.#stage.removeAttribute('aria-busy');
      });
  }

  async #failure(error: unknown) {
    let consent: Consent | undefined;
    if (this.#consentId) consent = await this.#bff.consents.get(this.#consentId).catch(() => undefined);
    if (consent && !AWAITING.has(consent.status)) return this.#finish(outcomeOf(consent));
    const shown = connectErrorOf(error);
    this.#showError(shown);
    // 400 and 422 are the user's to correct (a password, a code); anything else the page may act on.
    const fixable = error instanceof BffError && (error.status === 400 || error.status === 422);
    if (fixable) return this.#funnel.error(shown.code);
    this.#funnel.end('failed', shown.code);
    this.#emit('failed', { ...(consent ? { consent } : {}), error: shown });
  }

  // ---- choosing a bank --------------------------------------------------------------------------------

  #showPicker(moveFocus: boolean) {
    this.#institution = this.#consentId = undefined;
    this.#search.show(moveFocus);
  }

  async #preselect(institutionId: string) {
    this.#show(progressView('Loading your bank…'), false);
    try {
      this.#choose(await this.#bff.institutions.get(institutionId), false);
    } catch (error) {
      const again = () => this.#showPicker(true);
      const view = resultView('Bank not found', 'This bank cannot be connected now.', again, 'Choose a bank');
      this.#show(view, false);
      throw error;
    }
  }

  #choose(institution: Institution, moveFocus: boolean) {
    this.#institution = institution;
    this.#funnel.step('chose', { institutionId: institution.id });
    this.#say('');
    const view = bankView(institution, {
      redirect: () => this.#run(() => this.#redirect(institution)),
      embedded: () => this.#show(credentialsStep(this.#embeddedHost(), institution), true),
      back: () => this.#showPicker(true),
    });
    this.#show(view, moveFocus);
  }

  // ---- the redirect flow ------------------------------------------------------------------------------

  async #redirect(institution: Institution) {
    const created = await this.#bff.consents.create(this.userId, {
      institutionId: institution.id,
      redirectUrl: this.returnUrl,
    });
    this.#show(progressView('Taking you to your bank…'), true);
    this.#funnel.leaveForBank(institution.id, created.id);
    window.location.assign(created.authorisationUrl);
  }

  async #returnFromBank(consentId: string, bankError?: string) {
    this.#show(progressView('Checking your bank connection…'), false);
    let consent: Consent;
    try {
      consent = await this.#bff.consents.get(consentId);
    } catch (error) {
      forgetBankReturn();
      this.#funnel.resume(consentId);
      return this.#finish({ type: 'failed', detail: { error: connectErrorOf(error) } });
    }
    // A payment's or VRP consent's return is the page's, not the component's.
    if (consent.kind !== 'ACCOUNT') return this.#showPicker(false);
    this.#funnel.resume(consentId);
    this.#consentId = consentId;
    this.#institution = await this.#bff.institutions.get(consent.institutionId).catch(() => undefined);
    const signal = this.#life.signal;
    const outcome = AWAITING.has(consent.status)
      ? await waitForConsent(this.#bff, consentId, { timeoutMs: RETURN_TIMEOUT_MS, signal, bankError })
      : outcomeOf(consent, bankError);
    if (!outcome) return;
    forgetBankReturn();
    this.#finish(outcome);
  }

  // ---- the embedded flow (embedded-flow.ts) -----------------------------------------------------------

  #embeddedHost(): EmbeddedHost {
    return {
      bff: this.#bff,
      userId: this.userId,
      run: (task) => this.#run(task),
      show: (view) => this.#show(view, true),
      created: (consentId) => {
        this.#consentId = consentId;
        this.#funnel.step('sentToBank', { consentId });
      },
      decide: async (consentId) => {
        this.#funnel.step('returned');
        this.#show(progressView('Waiting for your bank…'), true);
        const signal = this.#life.signal;
        const outcome = await waitForConsent(this.#bff, consentId, {
          timeoutMs: EMBEDDED_TIMEOUT_MS,
          signal,
        });
        if (outcome) this.#finish(outcome);
      },
      cancel: () => void this.#cancel(),
    };
  }

  async #cancel() {
    if (this.#busy) return;
    const id = this.#consentId;
    const consent = id ? await this.#bff.consents.get(id).catch(() => undefined) : undefined;
    this.#funnel.end('cancelled');
    this.#emit('cancelled', consent ? { consent } : {});
    this.#showError(undefined);
    this.#showPicker(true);
    this.#say('Cancelled: no bank was connected.');
  }

  // ---- the end ----------------------------------------------------------------------------------------

  #finish(outcome: Outcome) {
    this.#consentId = undefined;
    this.#say('');
    const bank = this.#institution?.name ?? outcome.detail.consent?.institutionId ?? 'Your bank';
    this.#show(
      outcomeView(outcome, bank, () => this.#showPicker(true)),
      true,
    );
    if (outcome.type === 'failed') this.#showError(outcome.detail.error);
    const [end, reason] = funnelEndOf(outcome);
    this.#funnel.end(end, reason);
    this.#emit(outcome.type, outcome.detail);
  }
}
