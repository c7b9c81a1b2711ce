import { html } from './html';
import { layout } from './layout';

/** `detail`: for whoever can act on it (an application's developer), after the member's words. */
export function errorPage(title: string, message: string, detail?: string): string {
  return layout(
    { title },
    html`<div class="card"><h1>${title}</h1><p class="error" role="alert">${message}</p>
      ${detail ? html`<p class="hint">${detail}</p>` : ''}
      <p><a href="/settings/applications">Go to your settings</a></p></div>`,
  );
}
