/**
 * The /login form as a browser has it: the CSRF cookie and token of one GET, then a function
 * posting it (without following the redirect) with any e-mail and password.
 */
export async function loginForm(baseUrl: string): Promise<(email: string, password: string) => Promise<Response>> {
  const page = await fetch(`${baseUrl}/login`);
  const cookie = page.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return (email, password) =>
    fetch(`${baseUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email, password }),
    });
}

/** One sign-in attempt through the form, as a fresh browser makes it. */
export async function postSignIn(baseUrl: string, email: string, password: string): Promise<Response> {
  return (await loginForm(baseUrl))(email, password);
}
