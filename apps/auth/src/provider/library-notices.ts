import type { Logger } from '@contacts/config';

/**
 * oidc-provider writes its notices with console.info and console.warn ("oidc-provider WARNING:
 * …", coloured on a terminal): plain lines among the service's JSON log lines, which a log
 * collector cannot parse. They go to the service's logger instead, as `{"library":"oidc-provider"}`
 * lines. One of them is expected and logged at debug: the service reads token request bodies
 * before the provider does (http/token-request-body.ts), by design, and the provider says so once.
 *
 * console is the process's: the notices go to the logger of the auth server created last.
 */
const NOTICE = /^oidc-provider (NOTICE|WARNING): /;
const EXPECTED = ['already parsed request body detected'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequence of a terminal colour
const TERMINAL_COLOUR = /\u001b\[[0-9;]*m/g;

let target: Logger | undefined;

export function routeLibraryNotices(logger: Logger): void {
  const first = target === undefined;
  target = logger;
  if (!first) return;
  for (const method of ['info', 'warn'] as const) {
    const write = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const text = args.length === 1 && typeof args[0] === 'string' ? args[0].replace(TERMINAL_COLOUR, '') : '';
      const notice = NOTICE.exec(text);
      if (!notice || !target) return write(...args);
      const message = text.slice(notice[0].length);
      const level = EXPECTED.some((expected) => message.startsWith(expected)) ? 'debug' : method;
      target[level]({ library: 'oidc-provider' }, message);
    };
  }
}
