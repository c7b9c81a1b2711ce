import { describe, expect, it } from 'vitest';
import { html } from '../src/views/html';

describe('html templates', () => {
  it('escapes interpolated text everywhere', () => {
    const name = `"><img src=x onerror=alert(1)>`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it('inserts markup as markup in text, and as attributes inside a tag', () => {
    const cell = html`<span title="${'Mozilla/5.0'}">Chrome</span>`;
    const aria = html` aria-invalid="true"`;
    expect(html`<td>${cell}</td><input name="a"${aria}>`.value).toBe(
      '<td><span title="Mozilla/5.0">Chrome</span></td><input name="a" aria-invalid="true">',
    );
  });

  it('never lets markup end an attribute value it is placed in: there it is text', () => {
    const agent = 'Chrome/131.0 disabled formaction=https://evil.example/steal';
    const cell = html`<span title="${agent}">Chrome</span>`;
    const button = html`<button type="submit" aria-label="Sign out ${cell}" data-x='${[cell]}'>Sign out</button>`.value;
    expect(button).toBe(
      '<button type="submit" aria-label="Sign out &lt;span title=&quot;Chrome/131.0 disabled formaction=https://evil.example/steal&quot;&gt;Chrome&lt;/span&gt;" ' +
        "data-x='&lt;span title=&quot;Chrome/131.0 disabled formaction=https://evil.example/steal&quot;&gt;Chrome&lt;/span&gt;'>Sign out</button>",
    );
    // After the attribute closes, markup is markup again.
    expect(html`<a href="${'x'}">${cell}</a>`.value).toContain('<span title=');
  });
});
