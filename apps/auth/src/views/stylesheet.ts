/** The sign-in, consent and settings pages' one stylesheet, served at STYLESHEET_PATH (views/assets.ts). */
export const STYLESHEET = `:root {
  color-scheme: light;
  --ink: #1b1f24;
  --muted: #57606a;
  --line: #d0d7de;
  --accent: #0b5cad;
  --danger: #b42318;
  --bg: #f6f8fa;
}
* {
  box-sizing: border-box;
}
body {
  margin: 0;
  font:
    16px / 1.5 system-ui,
    -apple-system,
    "Segoe UI",
    Roboto,
    sans-serif;
  color: var(--ink);
  background: var(--bg);
}
/* The skip link: the first stop for a keyboard, out of sight until it has the focus. */
.skip {
  position: absolute;
  left: -9999px;
}
.skip:focus {
  left: 1rem;
  top: 0.5rem;
  z-index: 10;
  background: #fff;
  padding: 0.5rem 0.75rem;
}
.topbar {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 1rem;
  padding: 0.75rem 1.5rem;
  background: #fff;
  border-bottom: 1px solid var(--line);
}
.topbar nav {
  display: flex;
  gap: 1rem;
  flex: 1;
}
.topbar nav a {
  color: var(--muted);
  text-decoration: none;
  padding: 0.25rem 0;
}
.topbar nav a[aria-current="page"] {
  color: var(--ink);
  border-bottom: 2px solid var(--accent);
}
.brand {
  font-weight: 700;
  color: var(--ink);
  text-decoration: none;
}
.who {
  color: var(--muted);
  margin-right: 0.5rem;
}
main {
  margin: 2rem auto;
  padding: 0 1rem;
  /* Names members choose (apps, tokens) and hosts may be one long word: wrap it, never widen the page. */
  overflow-wrap: anywhere;
}
main.narrow {
  max-width: 26rem;
}
main.wide {
  max-width: 52rem;
}
.card {
  background: #fff;
  border: 1px solid var(--line);
  border-radius: 8px;
  padding: 1.5rem;
  margin-bottom: 1.5rem;
}
h1 {
  font-size: 1.5rem;
  margin: 0 0 1rem;
}
h2 {
  font-size: 1.15rem;
  margin: 0 0 0.75rem;
}
label {
  display: block;
  font-weight: 600;
  margin: 0.75rem 0 0.25rem;
}
input[type="text"],
input[type="email"],
input[type="password"],
input[type="url"],
input[type="number"],
textarea {
  width: 100%;
  padding: 0.55rem 0.65rem;
  font: inherit;
  border: 1px solid #8c959f;
  border-radius: 6px;
  background: #fff;
  color: var(--ink);
}
textarea {
  min-height: 4.5rem;
}
/* The field a refused form is about (fieldAria): marked, not only announced. */
input[aria-invalid="true"],
textarea[aria-invalid="true"] {
  border: 2px solid var(--danger);
}
input:focus-visible,
textarea:focus-visible,
button:focus-visible,
a:focus-visible {
  outline: 3px solid #0969da;
  outline-offset: 2px;
}
.hint {
  color: var(--muted);
  font-size: 0.9rem;
  margin: 0.25rem 0 0;
}
button,
a.button {
  font: inherit;
  cursor: pointer;
  border-radius: 6px;
  padding: 0.55rem 1rem;
  border: 1px solid transparent;
}
/* A link that looks like the buttons beside it (Edit, Cancel). */
a.button {
  display: inline-block;
  text-decoration: none;
  line-height: normal;
}
button.primary {
  background: var(--accent);
  color: #fff;
}
button.secondary,
a.button.secondary {
  background: #fff;
  color: var(--ink);
  border-color: #8c959f;
}
button.danger,
a.button.danger {
  background: #fff;
  color: var(--danger);
  border-color: var(--danger);
}
button.link {
  background: none;
  border: 0;
  padding: 0;
  color: var(--accent);
  text-decoration: underline;
}
.actions {
  display: flex;
  gap: 0.75rem;
  margin-top: 1.25rem;
  flex-wrap: wrap;
}
.error {
  background: #fff1f0;
  border: 1px solid #f4b4ae;
  color: #7a1c12;
  padding: 0.75rem 1rem;
  border-radius: 6px;
}
.notice {
  background: #eef6ee;
  border: 1px solid #a6d3a8;
  color: #124b17;
  padding: 0.75rem 1rem;
  border-radius: 6px;
}
.secret {
  font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
  word-break: break-all;
  background: var(--bg);
  padding: 0.5rem;
  border-radius: 4px;
  display: block;
}
table {
  width: 100%;
  border-collapse: collapse;
}
th,
td {
  text-align: left;
  padding: 0.5rem 0.25rem;
  border-bottom: 1px solid var(--line);
  vertical-align: top;
}
/*
 * A heading is a word or two, and an address one token: kept whole (anywhere would let a wide row
 * squeeze them to "Fr/om" and "127.0.0/.1").
 */
th,
td.whole {
  overflow-wrap: normal;
}
ul.scopes {
  padding-left: 1.2rem;
}
fieldset {
  border: 0;
  padding: 0;
  margin: 0.75rem 0 0;
}
legend {
  font-weight: 600;
}
.inline {
  display: inline;
}
.topbar form {
  display: flex;
  align-items: center;
  min-width: 0;
}
.who {
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
  max-width: 18rem;
}
td div {
  overflow-wrap: anywhere;
}
td code.client-id,
td a.button,
td button {
  white-space: nowrap;
}
/*
 * Phones: the tabs become a two-column grid under the brand, and each table row a stacked card
 * whose cells carry their column's name (data-label), so no page scrolls sideways.
 */
@media (max-width: 40rem) {
  .topbar {
    padding: 0.75rem 1rem;
    gap: 0.5rem 1rem;
  }
  .brand {
    flex: 1;
  }
  .topbar nav {
    order: 3;
    flex: 1 0 100%;
    display: grid;
    grid-template-columns: 1fr 1fr;
    gap: 0.25rem 1rem;
  }
  .who {
    max-width: 11rem;
  }
  main {
    margin: 1rem auto;
    padding: 0 0.75rem;
  }
  .card {
    padding: 1rem;
  }
  table.stacking,
  table.stacking tbody,
  table.stacking tr {
    display: block;
    width: 100%;
  }
  table.stacking thead {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  table.stacking tr {
    border-bottom: 1px solid var(--line);
    padding: 0.5rem 0;
  }
  table.stacking td {
    display: grid;
    grid-template-columns: 6.5rem minmax(0, 1fr);
    gap: 0 0.5rem;
    border: 0;
    padding: 0.2rem 0;
    overflow-wrap: anywhere;
  }
  table.stacking td > * {
    grid-column: 2;
    overflow-wrap: anywhere;
  }
  /* On the narrowest phones (320 px) a client id or a button's label breaks rather than run over the card's edge. */
  table.stacking td code.client-id,
  table.stacking td a.button,
  table.stacking td button {
    white-space: normal;
  }
  table.stacking td form + form,
  table.stacking td a.button + form,
  table.stacking td a.button + a.button {
    margin-top: 0.5rem;
  }
  table.stacking td a.button {
    justify-self: start;
  }
  /* The label spans the cell's rows, so that several values (URIs, buttons) stack beside it. */
  table.stacking td::before {
    grid-row: 1 / span 12;
    content: attr(data-label);
    font-weight: 600;
    color: var(--muted);
  }
}
`;
