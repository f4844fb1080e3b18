/**
 * The component's shadow styles. Everything a page may change is a CSS custom property (inherited
 * through the shadow boundary) or a `::part()`; see the element's doc comment for the list.
 */
export const CONNECT_STYLES = `
:host {
  --_accent: var(--bff-connect-accent, #1d4ed8);
  --_accent-text: var(--bff-connect-accent-text, #ffffff);
  --_fg: var(--bff-connect-foreground, #111827);
  --_bg: var(--bff-connect-background, #ffffff);
  --_border: var(--bff-connect-border, #d1d5db);
  --_muted: var(--bff-connect-muted, #4b5563);
  --_error: var(--bff-connect-error, #b91c1c);
  --_radius: var(--bff-connect-radius, 8px);
  --_gap: var(--bff-connect-spacing, 12px);
  display: block;
  box-sizing: border-box;
  max-width: 100%;
  min-width: 0;
  padding: calc(var(--_gap) * 1.5);
  font-family: var(--bff-connect-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
  font-size: var(--bff-connect-font-size, 1rem);
  line-height: 1.4;
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  overflow-wrap: anywhere;
}
:host([hidden]) { display: none; }
*, *::before, *::after { box-sizing: border-box; }
.step { display: flex; flex-direction: column; gap: var(--_gap); min-width: 0; }
h2 { margin: 0; font-size: 1.15em; font-weight: 600; }
h2:focus { outline: none; }
p { margin: 0; }
.field { display: flex; flex-direction: column; gap: 4px; }
label { font-weight: 600; }
.hint { color: var(--_muted); font-size: 0.875em; }
input {
  width: 100%;
  min-width: 0;
  padding: 10px 12px;
  font: inherit;
  font-size: max(16px, 1em);
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: calc(var(--_radius) * 0.75);
}
form { display: flex; flex-direction: column; gap: var(--_gap); }
.actions { display: flex; flex-wrap: wrap; gap: 8px; }
button {
  min-height: 44px;
  max-width: 100%;
  padding: 10px 16px;
  font: inherit;
  font-weight: 600;
  border-radius: calc(var(--_radius) * 0.75);
  cursor: pointer;
}
button.primary { color: var(--_accent-text); background: var(--_accent); border: 1px solid var(--_accent); }
button.secondary { color: var(--_accent); background: transparent; border: 1px solid var(--_border); }
button:focus-visible, input:focus-visible {
  outline: 3px solid var(--_accent);
  outline-offset: 2px;
}
.institutions { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
button.institution {
  display: flex;
  flex-direction: column;
  align-items: flex-start;
  width: 100%;
  text-align: start;
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  font-weight: 400;
}
button.institution:hover { border-color: var(--_accent); }
.institution .name { font-weight: 600; }
.institution .flows { color: var(--_muted); font-size: 0.875em; }
.progress {
  width: 28px;
  height: 28px;
  border: 3px solid var(--_border);
  border-top-color: var(--_accent);
  border-radius: 50%;
  animation: spin 0.9s linear infinite;
}
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .progress { animation: none; } }
.status, .error { margin: var(--_gap) 0 0; }
.status { color: var(--_muted); font-size: 0.875em; }
.status:empty, .error:empty { display: none; }
.error {
  color: var(--_error);
  border-inline-start: 3px solid var(--_error);
  padding-inline-start: 8px;
}
.error .reference { display: block; color: var(--_muted); font-size: 0.8em; }
`;
