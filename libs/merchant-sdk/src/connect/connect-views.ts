import type { Institution } from '../models.js';
import { button, h, labelled } from './connect-dom.js';
import type { ConnectError } from './connect-types.js';
import type { Outcome } from './consent-outcome.js';

/** One step of the component: what it shows, and where focus goes when the user arrives at it. */
export interface View {
  content: HTMLElement;
  focus: HTMLElement;
}

type Flow = Institution['flows'][number];

/** How each flow reads to the user. */
const FLOW_TEXT: Record<Flow, string> = {
  REDIRECT: "on your bank's website",
  EMBEDDED: 'sign in here',
};

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const heading = (text: string) => h('h2', { part: 'heading', tabindex: '-1' }, text);

/** A form whose submit calls `onSubmit` once its fields are valid (the page never navigates). */
function form(onSubmit: () => void, ...children: Node[]): HTMLFormElement {
  const element = h('form', { part: 'form' }, ...children);
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    if (element.reportValidity()) onSubmit();
  });
  return element;
}

const actions = (...buttons: HTMLButtonElement[]) =>
  h('div', { class: 'actions', part: 'actions' }, ...buttons);

export interface PickerView extends View {
  search: HTMLInputElement;
  list: HTMLUListElement;
}

/** The bank search: a search box and the list of results (filled by {@link showInstitutions}). */
export function pickerView(query: string, onSearch: (query: string) => void): PickerView {
  const { field, input } = labelled('Search for your bank', {
    type: 'search',
    part: 'input search',
    autocomplete: 'off',
    spellcheck: 'false',
    value: query,
    oninput: () => onSearch(input.value),
  });
  input.value = query;
  const list = h('ul', { part: 'list', class: 'institutions', 'aria-label': 'Banks' });
  const content = h('div', { class: 'step' }, heading('Connect your bank'), field, list);
  return { content, focus: input, search: input, list };
}

/** The banks found, each a button naming how it connects. */
export function showInstitutions(
  list: HTMLUListElement,
  institutions: Institution[],
  onChoose: (institution: Institution) => void,
): void {
  list.replaceChildren(
    ...institutions.map((institution) => {
      const name = institution.name || institution.id;
      const ways = capitalised(institution.flows.map((flow) => FLOW_TEXT[flow] ?? flow).join(' or '));
      return h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            part: 'institution',
            class: 'institution',
            'data-institution-id': institution.id,
            'aria-label': `${name}: ${ways}`,
            onclick: () => onChoose(institution),
          },
          h('span', { class: 'name', part: 'institution-name' }, name),
          h('span', { class: 'flows', part: 'institution-flows' }, ways),
        ),
      );
    }),
  );
}

/** A chosen bank: the ways it connects, and the way back to the list. */
export function bankView(
  institution: Institution,
  on: { redirect: () => void; embedded: () => void; back: () => void },
): View {
  const flows = institution.flows;
  const redirect =
    flows.includes('REDIRECT') &&
    button("Continue to your bank's website", on.redirect, {
      primary: true,
      props: { 'data-flow': 'REDIRECT' },
    });
  const embedded =
    flows.includes('EMBEDDED') &&
    button('Sign in to your bank here', on.embedded, {
      primary: !redirect,
      props: { 'data-flow': 'EMBEDDED' },
    });
  const first = redirect || embedded;
  const back = button('Choose another bank', on.back);
  const content = h(
    'div',
    { class: 'step' },
    heading(`Connect ${institution.name || institution.id}`),
    h(
      'p',
      {},
      first
        ? 'Your bank asks you to confirm that we may read your accounts and transactions.'
        : 'This bank cannot be connected for account data.',
    ),
    actions(...[redirect, embedded, back].filter((b): b is HTMLButtonElement => !!b)),
  );
  return { content, focus: first || back };
}

/** The embedded flow's first step: the user's credentials at the bank. */
export function credentialsView(
  institution: Institution,
  on: { submit: (credentials: { id: string; password: string }) => void; cancel: () => void },
): View {
  const user = labelled('User ID', { autocomplete: 'username', required: true, autocapitalize: 'none' });
  const password = labelled(
    'Password',
    { type: 'password', autocomplete: 'current-password', required: true },
    'Sent straight to your bank; never stored.',
  );
  const content = h(
    'div',
    { class: 'step' },
    heading(`Sign in to ${institution.name || institution.id}`),
    form(
      () => on.submit({ id: user.input.value, password: password.input.value }),
      user.field,
      password.field,
      actions(button('Continue', undefined, { primary: true, type: 'submit' }), button('Cancel', on.cancel)),
    ),
  );
  return { content, focus: user.input };
}

/** The bank's ways of sending a code, one button each. */
export function methodsView(
  methods: { id: string; type: string | null; description: string | null }[],
  on: { choose: (methodId: string) => void; cancel: () => void },
): View {
  const buttons = methods.map((method) =>
    button(method.description || method.type || method.id, () => on.choose(method.id), {
      primary: true,
      props: { 'data-method': method.id },
    }),
  );
  const content = h(
    'div',
    { class: 'step' },
    heading('How should your bank send your code?'),
    actions(...buttons, button('Cancel', on.cancel)),
  );
  return { content, focus: buttons[0] ?? content };
}

/** The code the bank sent. */
export function codeView(on: { submit: (code: string) => void; cancel: () => void }): View {
  const code = labelled('Code from your bank', {
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    required: true,
  });
  const content = h(
    'div',
    { class: 'step' },
    heading('Enter your code'),
    form(
      () => on.submit(code.input.value.trim()),
      code.field,
      actions(button('Confirm', undefined, { primary: true, type: 'submit' }), button('Cancel', on.cancel)),
    ),
  );
  return { content, focus: code.input };
}

/** Waiting on the API or the bank. */
export function progressView(text: string): View {
  const title = heading(text);
  const content = h(
    'div',
    { class: 'step', 'aria-busy': 'true' },
    h('div', { class: 'progress', part: 'progress', 'aria-hidden': 'true' }),
    title,
  );
  return { content, focus: title };
}

/** The end of a connection: what happened, and a way to start again. */
export function resultView(title: string, text: string, again: () => void, againText: string): View {
  const top = heading(title);
  const content = h(
    'div',
    { class: 'step' },
    top,
    h('p', {}, text),
    actions(button(againText, again, { primary: true })),
  );
  return { content, focus: top };
}

/** The view a connection ends on: what became of `bank`, and a way to start again. */
export function outcomeView(outcome: Outcome, bank: string, again: () => void): View {
  if (outcome.type === 'connected')
    return resultView(
      'Bank connected',
      `${bank} is connected: your accounts will appear shortly.`,
      again,
      'Connect another bank',
    );
  if (outcome.type === 'cancelled') {
    const text = `${bank} was not connected: the request was declined at the bank.`;
    return resultView('Not connected', text, again, 'Start again');
  }
  return resultView('Not connected', `${bank} could not be connected.`, again, 'Try again');
}

/** An error as the component shows it: its message, and the reference to quote to support. */
export function errorParts(error: ConnectError | undefined): (HTMLElement | string)[] {
  if (!error) return [];
  const reference = error.tracingId && h('span', { class: 'reference' }, `Reference: ${error.tracingId}`);
  return [h('span', {}, error.message), reference || ''];
}
