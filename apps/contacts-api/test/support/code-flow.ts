/**
 * A member's browser, reduced to what the authorization code flow needs: cookies, redirects,
 * and the sign-in and consent forms of the auth server (their CSRF token included). Returns
 * the URL the browser is finally sent to (the client's redirect URI with `code`).
 */
export async function approveInBrowser(
  authorizeUrl: string,
  redirectUri: string,
  credentials: { email: string; password: string },
): Promise<URL> {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  };
  let url = authorizeUrl;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step += 1) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader() },
    });
    remember(response);
    const location = response.headers.get('location');
    if (location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      url = next.href;
      init = {};
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`the auth server answered ${response.status}: ${page.slice(0, 200)}`);
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !csrf) throw new Error('no form on the page');
    const form: Record<string, string> = page.includes('name="password"')
      ? { csrf, email: credentials.email, password: credentials.password }
      : { csrf, decision: 'allow' };
    url = new URL(action.replaceAll('&amp;', '&'), url).href;
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    };
  }
  throw new Error('the flow did not reach the redirect URI');
}
