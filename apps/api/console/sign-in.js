// Sign-in: an API key (a merchant's developer) or the operator token, exchanged for the console's cookie.
import { operator } from './api.js';
import { errorText, h, submitting } from './ui.js';

export function signInScreen(main, message, signedIn) {
  const status = h('p', { id: 'sign-in-status', role: 'status' });
  const form = (legend, id, label, help, field, action) => {
    const input = h('input', {
      id,
      name: id,
      type: 'password',
      autocomplete: 'off',
      required: true,
      'aria-describedby': `${id}-help`,
    });
    const button = h('button', { type: 'submit' }, action);
    const element = h(
      'form',
      {
        onsubmit: submitting(async () => {
          status.className = 'state';
          status.textContent = 'Signing in…';
          try {
            const answer = await operator.post('/console/session', { body: { [field]: input.value } });
            signedIn(answer.data.kind);
          } catch (error) {
            status.className = 'error';
            status.textContent = `Could not sign in. ${errorText(error)}`;
          } finally {
            input.value = '';
          }
        }),
      },
      h(
        'fieldset',
        {},
        h('legend', {}, legend),
        h('label', { for: id }, label),
        h('p', { id: `${id}-help`, class: 'muted' }, help),
        h('div', { class: 'row' }, input, button),
      ),
    );
    return element;
  };
  main.append(
    h('h1', {}, 'Sign in'),
    h(
      'p',
      {},
      'The console keeps your key only long enough to sign you in: you then get a session of at most 8 hours, held in a cookie this page cannot read.',
    ),
    status,
    form(
      "A merchant's developer",
      'api-key',
      'API key',
      'One of your API keys (it starts with mk_).',
      'apiKey',
      'Sign in with the key',
    ),
    form(
      'The operator',
      'operator-token',
      'Operator token',
      'The platform operator token.',
      'operatorToken',
      'Sign in as the operator',
    ),
  );
  // Why the sign-in is back (signed out, the session ended), written once the status is in the page: a
  // live region drawn with its text already in it is not read out.
  if (message) window.requestAnimationFrame(() => (status.textContent = message));
}
