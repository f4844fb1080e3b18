import { thisPage } from './connect-return.js';
import type { BffConnectEventMap } from './connect-types.js';

/** Outside a browser (server rendering, Node tests) the module still loads; the element needs a DOM. */
const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

const PROPERTIES = ['baseUrl', 'sessionToken', 'userId', 'returnUrl', 'country', 'institutionId'] as const;

/**
 * The attributes of `<bff-connect>` and their properties. The session token is kept in a private field:
 * the `session-token` attribute sets it, the `sessionToken` property sets it without ever writing the
 * attribute (so it is not in the DOM, nor in a serialisation of the page), and nothing logs it.
 */
export abstract class ConnectAttributes extends Base {
  static readonly observedAttributes = [
    'base-url',
    'session-token',
    'user-id',
    'return-url',
    'country',
    'institution-id',
  ];

  #token: string | null = null;

  /** The BFF's URL (`base-url`), e.g. `https://bff.example.com`. */
  get baseUrl(): string {
    return this.getAttribute('base-url') ?? '';
  }
  set baseUrl(value: string) {
    this.setAttribute('base-url', value);
  }
  /** The user the session belongs to (`user-id`). */
  get userId(): string {
    return this.getAttribute('user-id') ?? '';
  }
  set userId(value: string) {
    this.setAttribute('user-id', value);
  }
  /** Where the bank sends the user back (`return-url`); default: this page without its query. */
  get returnUrl(): string {
    return this.getAttribute('return-url') || thisPage();
  }
  set returnUrl(value: string) {
    this.setAttribute('return-url', value);
  }
  /** Only the banks of this country (ISO 3166-1 alpha-2), when set. */
  get country(): string | null {
    return this.getAttribute('country');
  }
  set country(value: string | null) {
    this.#setOptional('country', value);
  }
  /** A bank to preselect: the list is skipped (the user can still choose another). */
  get institutionId(): string | null {
    return this.getAttribute('institution-id');
  }
  set institutionId(value: string | null) {
    this.#setOptional('institution-id', value);
  }
  /** The user's session token (`us_…`): read for every call, so a renewed one is used from the next. */
  get sessionToken(): string | null {
    return this.#token;
  }
  set sessionToken(value: string | null) {
    this.#token = value || null;
    this.configured();
  }

  /** An attribute or the token changed: start, if everything needed is now there. */
  protected abstract configured(): void;
  protected abstract attached(): void;
  protected abstract detached(): void;

  connectedCallback(): void {
    // A property the page set before this element was defined sits on the instance: take it over.
    const own = this as unknown as Record<string, unknown>;
    for (const name of PROPERTIES) {
      if (!Object.prototype.hasOwnProperty.call(own, name)) continue;
      const value = own[name];
      delete own[name];
      own[name] = value;
    }
    this.attached();
  }

  disconnectedCallback(): void {
    this.detached();
  }

  attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    if (name === 'session-token') this.#token = value || null;
    this.configured();
  }

  /** `addEventListener('connected', (event) => event.detail.consent)`, typed. */
  override addEventListener<K extends keyof BffConnectEventMap>(
    type: K,
    listener: (this: HTMLElement, event: BffConnectEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: HTMLElement, event: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void {
    super.addEventListener(type, listener, options);
  }

  #setOptional(name: string, value: string | null) {
    if (value) this.setAttribute(name, value);
    else this.removeAttribute(name);
  }
}
