// How a screen's parts load: "Loading…" meanwhile, the empty state, the error in words, and the pages of
// a list, with what screen readers hear of it.
import { announce, errorText, h, itemTable, rowsOf } from './ui.js';

/** @typedef {import('./ui.js').Children} Children */
/** @typedef {import('./ui.js').Shown} Shown */

/**
 * What screen readers hear of loading, through the one live region: "Loading…" when the first of a
 * screen's loads starts, then, once the last ends, "Loaded." or how many parts failed (each failure is
 * also an alert where it happened). One word for all a screen's loads rather than one each.
 */
const loads = { running: 0, failed: 0 };
function loadStarted() {
  if (loads.running++ === 0) {
    loads.failed = 0;
    announce('Loading…');
  }
}
/** @param {boolean} ok */
function loadEnded(ok) {
  if (!ok) loads.failed += 1;
  if (--loads.running > 0) return;
  const { failed } = loads;
  announce(
    failed === 0
      ? 'Loaded.'
      : `Loaded, but ${failed === 1 ? 'one part' : `${failed} parts`} could not be: the page says why.`,
  );
}

/**
 * Fills `container` with what `load` answers, rendered by `render`: "Loading…" meanwhile, `empty` when
 * the answer is an empty list, and the error in words when it fails.
 * @template T
 * @param {HTMLElement} container
 * @param {{ what: string, load: () => Promise<T>, render: (answer: T) => Shown, empty?: string }} part
 */
export async function loadInto(container, { what, load, render, empty }) {
  container.replaceChildren(h('p', { class: 'state' }, `Loading ${what}…`));
  container.setAttribute('aria-busy', 'true');
  loadStarted();
  let ok = false;
  try {
    const answer = await load();
    const nothing = Array.isArray(answer) && answer.length === 0;
    container.replaceChildren(...[nothing ? h('p', { class: 'state' }, empty) : render(answer)].flat());
    ok = true;
  } catch (error) {
    container.replaceChildren(
      h('p', { class: 'error', role: 'alert' }, `Could not load ${what}. ${errorText(error)}`),
    );
  } finally {
    container.removeAttribute('aria-busy');
    loadEnded(ok);
  }
}

/**
 * A disclosure whose part loads when it is first opened, not with the screen (a list few ask for):
 * `summary` names it, `of` (read by screen readers only) what it is of, and `load` fills its part.
 * @param {string} summary
 * @param {string} of
 * @param {(part: HTMLElement) => unknown} load
 * @param {string} [id] the part's
 */
export function loadedWhenOpened(summary, of, load, id) {
  const part = h('div', { id });
  let loaded = false;
  return h(
    'details',
    {
      ontoggle: (event) => {
        if (!event.currentTarget.open || loaded) return;
        loaded = true;
        void load(part);
      },
    },
    h('summary', {}, summary, h('span', { class: 'visually-hidden' }, ` ${of}`)),
    part,
  );
}

/**
 * A list the api pages (`load(cursor)` answers `{ items, nextCursor }`) as one table in `container`: the
 * first page with `loadInto`'s states, then a "Show more" button while there is a next page. A further
 * page's rows join the same table and the first of them takes the focus, so a keyboard user goes on
 * reading where the new rows start; a failure says so next to the button, which stays to try again.
 * `below`, when given, draws what belongs to an item in a row under its own, across the table.
 * @template T
 * @param {HTMLElement} container
 * @param {{
 *   what: string,
 *   load: (cursor: string | undefined) => Promise<{ items: T[], nextCursor?: string | null }>,
 *   caption: string,
 *   headers: string[],
 *   row: (item: T) => Children[],
 *   below?: (item: T) => Children,
 *   empty: string,
 * }} list
 */
export function pagedInto(container, { what, load, caption, headers, row, below, empty }) {
  const itemRows = rowsOf(headers.length, row, below);
  return loadInto(container, {
    what,
    load: () => load(undefined),
    render: (first) => {
      if (first.items.length === 0) return h('p', { class: 'state' }, empty);
      const list = itemTable(caption, headers, first.items, row, below);
      const footer = h('div', { class: 'more' });
      let cursor = first.nextCursor;
      let shown = first.items.length;
      const problem = h('p', { class: 'error', role: 'alert' });
      const button = h('button', { type: 'button', class: 'secondary' }, 'Show more');
      const end = () =>
        footer.replaceChildren(
          cursor
            ? h('p', { class: 'row' }, button, h('span', { class: 'muted' }, `${shown} shown so far.`))
            : h('p', { class: 'muted' }, `That is all of them: ${shown}.`),
          problem,
        );
      button.addEventListener('click', async () => {
        button.disabled = true;
        button.textContent = 'Loading more…';
        problem.textContent = '';
        container.setAttribute('aria-busy', 'true');
        announce('Loading more…');
        try {
          const next = await load(cursor ?? undefined);
          const rows = next.items.map(itemRows);
          list.tBodies[0].append(...rows.flat());
          cursor = next.nextCursor;
          shown += rows.length;
          end();
          announce(`${rows.length} more shown, ${shown} in all.`);
          const [firstNew] = rows[0] ?? [];
          if (firstNew) {
            firstNew.setAttribute('tabindex', '-1');
            firstNew.focus();
          }
        } catch (error) {
          problem.textContent = `Could not load more of ${what}. ${errorText(error)}`;
          announce(problem.textContent);
        } finally {
          button.disabled = false;
          button.textContent = 'Show more';
          container.removeAttribute('aria-busy');
        }
      });
      end();
      return [list, footer];
    },
  });
}
