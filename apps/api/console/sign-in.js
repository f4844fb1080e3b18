// Sign-in: an API key (a merchant's developer) or the operator token, exchanged for the console's cookie.
import { operator } from './api.js';
import { errorText, h, submitting } from './ui.js';

/** @typedef {import('./operator-client').Schema<'ConsoleSessionOutput'>['kind']} Kind */

/**
 * A way in: who signs in (`legend`), the field's id, words and button, and how the api names it.
 * @typedef {object} Credential
 * @property {string} legend
 * @property {string} id
 * @property {string} label
 * @property {string} help
 * @property {keyof import('./operator-client').Schema<'ConsoleSignInInput'>} field
 * @property {string} action
 */

/**
 * The two ways in: who signs in, with what, and how the api's sign-in names it (`field`).
 * @type {Credential[]}
 */
const CREDENTIALS = [
  {
    legend: "A merchant's developer",
    id: 'api-key',
    label: 'API key',
    help: 'One of your API keys (it starts with mk_).',
    field: 'apiKey',
    action: 'Sign in with the key',
  },
  {
    legend: 'The operator',
    id: 'operator-token',
    label: 'Operator token',
    help: 'The platform operator token.',
    field: 'operatorToken',
    action: 'Sign in as the operator',
  },
];

/**
 * What both forms share: the status line (`say`, with its class) and `signedIn`, told the kind of user.
 * @param {(kind: Kind) => void} signedIn
 */
function signInView(signedIn) {
  const status = h('p', { id: 'sign-in-status', role: 'status' });
  return {
    status,
    signedIn,
    /**
     * @param {'state' | 'error'} className
     * @param {string} text
     */
    say: (className, text) => {
      status.className = className;
      status.textContent = text;
    },
  };
}

/** @typedef {ReturnType<typeof signInView>} Screen */

/** @param {string} id */
function credentialInput(id) {
  return h('input', {
    id,
    name: id,
    type: 'password',
    autocomplete: 'off',
    required: true,
    'aria-describedby': `${id}-help`,
  });
}

/**
 * Exchanges what was typed for the cookie; the field is emptied whatever the answer.
 * @param {Screen} screen
 * @param {HTMLInputElement} input
 * @param {Credential['field']} field
 */
function signIn(screen, input, field) {
  return submitting(async () => {
    screen.say('state', 'Signing in…');
    try {
      const answer = await operator.post('/console/session', { body: { [field]: input.value } });
      screen.signedIn(answer.data.kind);
    } catch (error) {
      screen.say('error', `Could not sign in. ${errorText(error)}`);
    } finally {
      input.value = '';
    }
  });
}

/**
 * @param {Screen} screen
 * @param {Credential} credential
 */
function credentialForm(screen, { legend, id, label, help, field, action }) {
  const input = credentialInput(id);
  return h(
    'form',
    { onsubmit: signIn(screen, input, field) },
    h(
      'fieldset',
      {},
      h('legend', {}, legend),
      h('label', { for: id }, label),
      h('p', { id: `${id}-help`, class: 'muted' }, help),
      h('div', { class: 'row' }, input, h('button', { type: 'submit' }, action)),
    ),
  );
}

/**
 * @param {HTMLElement} main
 * @param {string | undefined} message why the sign-in is back, if it is
 * @param {(kind: Kind) => void} signedIn
 */
export function signInScreen(main, message, signedIn) {
  const screen = signInView(signedIn);
  main.append(
    h('h1', {}, 'Sign in'),
    h(
      'p',
      {},
      'The console keeps your key only long enough to sign you in: you then get a session of at most 8 hours, held in a cookie this page cannot read.',
    ),
    screen.status,
    ...CREDENTIALS.map((credential) => credentialForm(screen, credential)),
  );
  // Why the sign-in is back (signed out, the session ended), written once the status is in the page: a
  // live region drawn with its text already in it is not read out.
  if (message) window.requestAnimationFrame(() => (screen.status.textContent = message));
}
