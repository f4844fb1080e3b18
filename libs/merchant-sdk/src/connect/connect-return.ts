/**
 * The way back from the bank: the BFF's callback sends the browser to the `return-url` with
 * `?consentId=…&status=…` (and `error=…` when the bank refused). A payment's return carries `paymentId`
 * too: that one is not the component's.
 */
export interface BankReturn {
  consentId: string;
  status: string;
  error?: string;
}

const RETURN_PARAMS = ['consentId', 'status', 'error'] as const;

/** The consent the page's URL comes back with from the bank, if it does. */
export function bankReturnOf(location: Location): BankReturn | undefined {
  const query = new URLSearchParams(location.search);
  const consentId = query.get('consentId');
  const status = query.get('status');
  if (!consentId || !status || query.has('paymentId')) return undefined;
  const error = query.get('error');
  return { consentId, status, ...(error ? { error } : {}) };
}

/** Takes the return's parameters off the address bar (no new history entry, nothing reloaded). */
export function forgetBankReturn(): void {
  const url = new URL(window.location.href);
  for (const name of RETURN_PARAMS) url.searchParams.delete(name);
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
}

/** The default `return-url`: this page without its query (nor its fragment). */
export function thisPage(): string {
  return window.location.origin + window.location.pathname;
}
