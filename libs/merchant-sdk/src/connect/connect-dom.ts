/** What an element is made with: attributes (strings, or true for a bare one) and `on…` listeners. */
export type Props = Record<string, string | boolean | undefined | ((event: Event) => void)>;

let uniqueIds = 0;
/** An id unique in the document (labels point at inputs by id, inside the shadow root). */
export const uniqueId = (prefix: string) => `bff-connect-${prefix}-${++uniqueIds}`;

/**
 * An element with its attributes, listeners and children. Text goes in as text nodes, never as HTML, so
 * a bank's name (or anything else the API says) cannot become markup.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Node | string | false | undefined)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  for (const child of children) if (child !== false && child !== undefined) element.append(child);
  return element;
}

/** A labelled text input, the label above it: `{ field, input }`. */
export function labelled(
  label: string,
  props: Props,
  hint?: string,
): { field: HTMLDivElement; input: HTMLInputElement } {
  const id = uniqueId('input');
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h('input', {
    id,
    part: 'input',
    ...(hintId ? { 'aria-describedby': hintId } : {}),
    ...props,
  });
  const field = h(
    'div',
    { class: 'field' },
    h('label', { for: id, part: 'label' }, label),
    hint && h('p', { id: hintId, class: 'hint', part: 'hint' }, hint),
    input,
  );
  return { field, input };
}

/** A button that is a button (`type="button"` unless told), with its part names. */
export function button(
  text: string,
  onClick: ((event: Event) => void) | undefined,
  options: { primary?: boolean; type?: 'button' | 'submit'; props?: Props } = {},
): HTMLButtonElement {
  return h(
    'button',
    {
      type: options.type ?? 'button',
      part: options.primary ? 'button button-primary' : 'button',
      class: options.primary ? 'primary' : 'secondary',
      ...(onClick ? { onclick: onClick } : {}),
      ...options.props,
    },
    text,
  );
}
