import { html } from './html';
import { layout } from './layout';

export function errorPage(title: string, message: string): string {
  return layout(
    { title },
    html`<div class="card"><h1>${title}</h1><p class="error" role="alert">${message}</p>
      <p><a href="/settings/applications">Go to your settings</a></p></div>`,
  );
}
