import { describe, expect, it } from 'vitest';
import { InputError, requireText } from '../src/lib/validation';
import { consentPage } from '../src/views/consent';

/**
 * Names members give (applications, tokens, groups) are shown to other members, on the consent
 * page above all: one line of visible text, which cannot change how the sentence around it reads.
 */
const refusal = (name: string) => {
  try {
    requireText(name, 'name', 'Name', 100);
  } catch (error) {
    if (error instanceof InputError) return { field: error.field, message: error.message };
  }
  return undefined;
};

describe('names shown to members', () => {
  it.each([
    ['a right-to-left override', 'Good\u202Eevil', 'must not contain control or text-direction characters'],
    [
      'an isolate that is never closed',
      'Member contacts\u2067',
      'must not contain control or text-direction characters',
    ],
    ['a line break inside', 'Two\nlines', 'must not contain control or text-direction characters'],
    ['zero-width spaces only', '\u200B\u200B\u200B', 'must contain a visible character'],
    ['a Hangul filler only', '\u3164', 'must contain a visible character'],
    ['Braille blanks only', '\u2800\u2800', 'must contain a visible character'],
    ['a null notehead only', '\u{1D159}', 'must contain a visible character'],
    ['combining marks only', '\u0301\u0301', 'must contain a visible character'],
    ['a paragraph separator inside', 'Bank\u2029Official', 'must not contain control or text-direction characters'],
    ['an interlinear annotation mark', 'a\uFFF9b', 'must not contain control or text-direction characters'],
    ['a noncharacter', 'App \uFFFE', 'must not contain control or text-direction characters'],
  ])('refuses %s', (_why, name, message) => {
    expect(refusal(name)).toEqual({ field: 'name', message: expect.stringContaining(message) });
  });

  it.each([
    ['Zoë’s exporter'],
    ['مُصدِّر جهات الاتصال'],
    ['通讯录同步'],
    ['CRM 🚀'],
    ['Ζωή 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}'],
    ['می\u200cخواهم'],
  ])('accepts %s', (name) => {
    expect(refusal(name)).toBeUndefined();
  });

  it('shows a direction control in a name stored before the rule as U+FFFD: the sentence reads as written', () => {
    const page = consentPage({
      action: '/interaction/x/confirm',
      switchAccountAction: '/interaction/x/switch-account',
      csrfToken: 't',
      applicationName: 'Good\u202Eevil',
      ownerName: 'Ada',
      member: { name: 'Grace', email: 'grace@example.com' },
      scopes: [],
      redirectUri: 'https://app.example/cb',
    });
    expect(page).not.toMatch(/\p{Bidi_Control}/u);
    expect(page).toContain('<strong>Good\uFFFDevil</strong>, an application registered by Ada');
  });
});
