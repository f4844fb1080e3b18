// One merchant, from the operator's side: its name and frontend origins, its upstream sub-application,
// and its API keys (the list, issuing one shown once, revoking one). Also what the merchants' list
// borrows for on-boarding.
import { del, get, page, patch, post } from './api.js';
import { keysTable, showKeyOnce } from './api-keys.js';
import { errorText, h, loadInto, submitting, when } from './ui.js';

/** What the operator is told of a merchant's new key. */
export const OPERATOR_KEY_ADVICE =
  'Copy it now and hand it to the merchant: it is shown only this once. It belongs on their servers, never in a web page.';

/** One origin a line, as the api takes them (`frontendOrigins`): blank lines and spaces dropped. */
export function originsFrom(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** A field for `frontendOrigins`, one origin a line (the api takes at most 20). */
export function originsField(id, origins = []) {
  return [
    h('label', { for: id }, 'Frontend origins (optional, one a line)'),
    h(
      'p',
      { id: `${id}-help`, class: 'muted' },
      'Like https://shop.example, without a path; at most 20. The web pages allowed to call the api with a customer session.',
    ),
    h(
      'textarea',
      { id, name: id, rows: 3, autocomplete: 'off', 'aria-describedby': `${id}-help` },
      origins.join('\n'),
    ),
  ];
}

/**
 * A new API key, this once, in `into`: it is in no list, storage or later answer, and leaves the page
 * when the operator is done or leaves the screen. `back` takes the focus afterwards.
 */
export function merchantScreen(main, id) {
  const base = `/admin/merchants/${encodeURIComponent(id)}`;
  const title = h('h1', {}, 'Merchant');
  const details = h('div', { id: 'merchant-details' });
  const subApplication = h('div', { id: 'merchant-sub-application-part' });
  // The upstream's first 100 sub-applications, offered as suggestions: asked once per screen, not on every
  // save, and never all of them (any other id can be typed; the upstream is asked whether it knows it).
  const known = page('/admin/upstream/applications?limit=100');
  // Read where the form is drawn; a screen that never draws it must not leave the failure unhandled.
  known.catch(() => undefined);
  const keys = h('div', { id: 'merchant-keys' });
  const issued = h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  const status = h('p', { role: 'status' });
  const keyName = h('input', { id: 'key-name', name: 'key-name', maxlength: 255, autocomplete: 'off' });

  const say = (good, text) => {
    status.className = good ? 'good' : 'error';
    status.textContent = text;
  };

  const refresh = () => {
    // One answer for both parts: the merchant carries its keys (never the keys themselves).
    const loaded = get(base).then(({ data }) => data);
    return Promise.all([
      loadInto(details, {
        what: 'the merchant',
        load: () => loaded,
        render: (merchant) => {
          title.textContent = merchant.name;
          return editForm(merchant);
        },
      }),
      loadInto(subApplication, {
        what: 'its sub-application',
        load: () => loaded,
        render: subApplicationForm,
      }),
      loadInto(keys, {
        what: "the merchant's API keys",
        load: async () => (await loaded).apiKeys,
        empty: 'This merchant has no API keys.',
        render: (list) => keysTable(list, revoke),
      }),
    ]);
  };

  function editForm(merchant) {
    const name = h('input', {
      id: 'merchant-name',
      name: 'merchant-name',
      required: true,
      maxlength: 255,
      autocomplete: 'off',
      value: merchant.name,
    });
    const form = h(
      'form',
      {
        onsubmit: submitting(async () => {
          const origins = form.querySelector('textarea');
          try {
            // The api takes the whole list of origins: what is sent replaces what was there.
            const { data } = await patch(base, {
              name: name.value.trim(),
              frontendOrigins: originsFrom(origins.value),
            });
            say(true, `${data.name} is saved.`);
            await refresh();
          } catch (error) {
            // Nothing is redrawn: what was typed stays, to be corrected.
            say(false, `Could not save the merchant. ${errorText(error)}`);
          }
        }),
      },
      h('label', { for: 'merchant-name' }, 'Name'),
      name,
      originsField('merchant-origins', merchant.frontendOrigins),
      h(
        'p',
        { class: 'muted' },
        merchant.disabledAt ? `Disabled since ${when(merchant.disabledAt)}.` : 'Enabled.',
      ),
      h('p', {}, h('button', { type: 'submit' }, 'Save')),
    );
    return form;
  }

  /**
   * The merchant's upstream sub-application: set to one the upstream knows (suggested from its list), or
   * cleared back to the root application. A refusal is said next to the field, which keeps what was typed.
   */
  function subApplicationForm(merchant) {
    const message = h('p', { id: 'merchant-sub-application-message', role: 'status' });
    const suggestions = h('datalist', { id: 'upstream-sub-applications' });
    const help = h(
      'p',
      { id: 'merchant-sub-application-help', class: 'muted' },
      "The upstream application id the merchant acts as; the upstream is asked whether it knows it. Its customers' consents and payments live under it, so it changes only while the merchant has none.",
    );
    const input = h('input', {
      id: 'merchant-sub-application',
      name: 'merchant-sub-application',
      class: 'mono wide',
      maxlength: 255,
      autocomplete: 'off',
      spellcheck: 'false',
      list: 'upstream-sub-applications',
      value: merchant.subApplicationId ?? '',
      'aria-describedby':
        'merchant-sub-application-help merchant-sub-application-known merchant-sub-application-message',
    });
    const offered = h(
      'p',
      { id: 'merchant-sub-application-known', class: 'muted' },
      'Asking the upstream for its sub-applications…',
    );
    void known.then(
      ({ items: applications, nextCursor }) => {
        suggestions.replaceChildren(...applications.map((a) => h('option', { value: a.id }, a.name ?? a.id)));
        const count = `${applications.length} sub-application${applications.length === 1 ? '' : 's'}`;
        offered.textContent = !applications.length
          ? 'The upstream lists no sub-application.'
          : nextCursor
            ? `The field suggests the upstream's first ${count} by id and name; type any other id.`
            : `The upstream lists ${count}: the field suggests them by id and name.`;
      },
      (error) => {
        offered.textContent = `Could not ask the upstream for its sub-applications; type the id. ${errorText(error)}`;
      },
    );

    const change = async (value, done) => {
      message.className = 'state';
      message.textContent = 'Asking the upstream…';
      input.removeAttribute('aria-invalid');
      try {
        const { data } = await patch(base, { subApplicationId: value });
        say(true, done(data));
        await refresh();
      } catch (error) {
        // Nothing is redrawn: what was typed stays, marked, with the api's reason next to it.
        message.className = 'error';
        message.textContent = `Could not change the sub-application. ${errorText(error)}`;
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      }
    };
    const named = (data) =>
      data.subApplicationName
        ? `${data.subApplicationName} (${data.subApplicationId})`
        : data.subApplicationId;

    return [
      h(
        'p',
        {},
        'Now: ',
        merchant.subApplicationId
          ? h('strong', {}, named(merchant))
          : h('strong', {}, 'none: the merchant acts as the root application'),
        '.',
      ),
      h(
        'form',
        {
          onsubmit: (event) => {
            event.preventDefault();
            const value = input.value.trim();
            if (!value) {
              message.className = 'error';
              message.textContent = 'Type a sub-application id, or use "Use none" to clear it.';
              input.focus();
              return;
            }
            void change(value, (data) => `${data.name} now acts as the sub-application ${named(data)}.`);
          },
        },
        h('label', { for: 'merchant-sub-application' }, 'Sub-application id'),
        help,
        offered,
        suggestions,
        h(
          'div',
          { class: 'row' },
          input,
          h('button', { type: 'submit' }, 'Set the sub-application'),
          merchant.subApplicationId
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  onclick: () =>
                    void change(null, (data) => `${data.name} now acts as the root application.`),
                },
                'Use none (the root application)',
              )
            : '',
        ),
        message,
      ),
    ];
  }

  async function revoke(key) {
    const label = key.name ?? key.prefix;
    // A revoked key stops working at once, everywhere: the question is worth asking.
    if (!window.confirm(`Revoke the key "${label}"? Anything still using it stops working at once.`)) return;
    try {
      await del(`${base}/api-keys/${encodeURIComponent(key.id)}`);
      say(true, `The key "${label}" is revoked.`);
    } catch (error) {
      say(false, `Could not revoke the key. ${errorText(error)}`);
    }
    await refresh();
  }

  const issue = h(
    'form',
    {
      onsubmit: submitting(async () => {
        try {
          const { data } = await post(`${base}/api-keys`, keyName.value ? { name: keyName.value } : {});
          keyName.value = '';
          showKeyOnce(issued, {
            title: 'The new key',
            key: data.key,
            advice: OPERATOR_KEY_ADVICE,
            back: keyName,
          });
        } catch (error) {
          say(false, `Could not issue a key. ${errorText(error)}`);
        }
        await refresh();
      }),
    },
    h('label', { for: 'key-name' }, 'Name of the new key (optional)'),
    h('div', { class: 'row' }, keyName, h('button', { type: 'submit' }, 'Issue a key')),
  );

  main.append(
    title,
    h(
      'p',
      {},
      h('a', { href: '#/merchants' }, 'All merchants'),
      ' · ',
      h('a', { href: `#/audit/${encodeURIComponent(id)}` }, 'Its audit log'),
    ),
    status,
    h('section', {}, h('h2', {}, 'Name and frontend origins'), details),
    h('section', {}, h('h2', {}, 'Upstream sub-application'), subApplication),
    h('section', {}, h('h2', {}, 'Issue a key'), issue),
    issued,
    h('section', {}, h('h2', {}, 'API keys'), keys),
  );
  void refresh();
}
