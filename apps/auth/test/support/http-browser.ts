import type { RunningAuthServer } from './auth-server';
import { aMember, type TestMember } from './factories';

/**
 * A browser without a window, for the auth app's own pages: it keeps cookies, follows no
 * redirects by itself, and submits forms with the CSRF token of the page they are on and the
 * hidden fields of the form itself (a create form's one-time id, a rotate form's secret version).
 */
export interface HttpBrowser {
  cookies: Map<string, string>;
  get(path: string): Promise<{ status: number; location: string | null; html: string }>;
  /** Loads `formPage`, then posts its form whose action is `action` with its hidden fields and these. */
  submit(
    formPage: string,
    action: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; location: string | null; html: string }>;
  /**
   * Posts exactly these fields to `action`, with this browser's cookies and without loading a
   * page first: what a reload of a form's answer sends again, or a forged request.
   */
  post(
    action: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; location: string | null; html: string }>;
  signIn(email: string, password: string): Promise<void>;
}

/**
 * `headers` go with every request: `{ 'x-forwarded-proto': 'https' }` makes it a browser behind
 * a TLS-terminating proxy, for a server whose public URL is https.
 */
export function httpBrowser(
  baseUrl: string,
  userAgent = 'TestBrowser/1.0',
  headers: Record<string, string> = {},
): HttpBrowser {
  const cookies = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      ...init,
      redirect: 'manual',
      headers: {
        ...headers,
        ...(init.headers as Record<string, string>),
        'user-agent': userAgent,
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return { status: response.status, location: response.headers.get('location'), html: await response.text() };
  };
  const browser: HttpBrowser = {
    cookies,
    get: (path) => send(path),
    async submit(formPage, action, fields) {
      const page = await send(formPage);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
      if (!csrf) throw new Error(`no CSRF token on ${formPage} (status ${page.status})`);
      return browser.post(action, { csrf, ...hiddenFields(page.html, action), ...fields });
    },
    post: (action, fields) =>
      send(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    async signIn(email, password) {
      const result = await browser.submit('/login', '/login?return_to=%2Fsettings%2Fsessions', { email, password });
      if (result.status !== 303) throw new Error(`sign-in answered ${result.status}`);
    },
  };
  return browser;
}

/** The hidden fields of the page's form whose action is `action` (none when there is no such form). */
export function hiddenFields(html: string, action: string): Record<string, string> {
  for (const [, attributes = '', inside = ''] of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    if (/\baction="([^"]*)"/.exec(attributes)?.[1] !== action) continue;
    const inputs = inside.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g);
    return Object.fromEntries([...inputs].map(([, name = '', value = '']) => [name, value]));
  }
  return {};
}

/** A new member, signed in to the pages in a browser of their own. */
export async function aSignedInMember(
  server: RunningAuthServer,
): Promise<{ member: TestMember; browser: HttpBrowser }> {
  const member = await aMember(server.database.db);
  const browser = httpBrowser(server.baseUrl);
  await browser.signIn(member.email, member.password);
  return { member, browser };
}
