import type { BffClient } from '../bff-client.js';
import type { Institution } from '../models.js';
import { type PickerView, pickerView, showInstitutions } from './connect-views.js';

const SEARCH_DEBOUNCE_MS = 250;

/** What the bank search needs of the element. */
export interface BankSearchHost {
  /** Read at each search: the element's client and country as they are then. */
  bff(): BffClient;
  country(): string | null | undefined;
  /** Shows the picker, in place of the step before. */
  show(picker: PickerView, moveFocus: boolean): void;
  /** The user typed a search. */
  searched(): void;
  choose(bank: Institution): void;
  /** The answer shown: what to say of it (any error shown before is gone). */
  found(text: string): void;
  failed(error: unknown): Promise<void>;
  /** The element left the page: nothing more to show. */
  gone(): boolean;
}

/**
 * The bank picker's search: what the user typed (kept when they come back to the list), searched as they
 * type (debounced), the newest search winning: an older answer arriving late is dropped.
 */
export class BankSearch {
  #query = '';
  #searches = 0;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(private readonly host: BankSearchHost) {}

  show(moveFocus: boolean): void {
    const picker = pickerView(this.#query, (query) => {
      this.#query = query;
      this.host.searched();
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.#search(picker), SEARCH_DEBOUNCE_MS);
    });
    this.host.show(picker, moveFocus);
    void this.#search(picker);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  async #search(picker: PickerView) {
    const ticket = ++this.#searches;
    const q = this.#query.trim();
    const country = this.host.country();
    try {
      const query = { limit: 50, ...(q ? { q } : {}), ...(country ? { country } : {}) };
      const page = await this.host.bff().institutions.list(query).page();
      // Another search since, or the picker replaced by another step (it left the page with it).
      if (ticket !== this.#searches || !picker.content.isConnected) return;
      const banks = page.items.filter((bank) => bank.flows.length > 0);
      showInstitutions(picker.list, banks, (bank) => this.host.choose(bank));
      const found = banks.length === 1 ? '1 bank found.' : `${banks.length} banks found.`;
      this.host.found(banks.length === 0 ? 'No bank matches your search.' : found);
    } catch (error) {
      if (ticket === this.#searches && !this.host.gone()) await this.host.failed(error);
    }
  }
}
