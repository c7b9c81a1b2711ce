/**
 * Server-rendered HTML with escaping by default: every interpolated value is escaped unless it
 * is itself the output of `html` (a SafeHtml). Arrays are joined.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Interpolation[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * [security] Text-direction controls (U+202E…) are shown as U+FFFD: names stored before they were
 * refused (validation.ts) must not reverse the page's sentences either.
 */
const BIDI_CONTROL = /\p{Bidi_Control}/gu;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character).replace(BIDI_CONTROL, '\uFFFD');
}

function render(value: Interpolation, inAttributeValue: boolean): string {
  if (value === null || value === undefined || value === false) return '';
  // Markup has no place inside an attribute's value: there it is text like any other, so that a
  // fragment meant for a cell cannot end the attribute and add others (formaction, disabled…).
  if (value instanceof SafeHtml) return inAttributeValue ? escapeHtml(value.value) : value.value;
  if (Array.isArray(value)) return value.map((item) => render(item, inAttributeValue)).join('');
  return escapeHtml(String(value));
}

/**
 * For each interpolation of a template, whether it stands inside a quoted attribute value: the
 * literal parts are read as HTML's tokenizer would (text, a tag, a quoted value). Attributes
 * themselves may be interpolated as markup (`<input${fieldAria(…)}>`). Cached per call site.
 */
const attributeValueSlots = new WeakMap<TemplateStringsArray, boolean[]>();

function inAttributeValueAt(strings: TemplateStringsArray): boolean[] {
  const cached = attributeValueSlots.get(strings);
  if (cached) return cached;
  let state: 'text' | 'tag' | '"' | "'" = 'text';
  const slots: boolean[] = [];
  for (const part of strings.slice(0, -1)) {
    for (const character of part) {
      if (state === 'text') {
        if (character === '<') state = 'tag';
      } else if (state === 'tag') {
        if (character === '>') state = 'text';
        else if (character === '"' || character === "'") state = character;
      } else if (character === state) {
        state = 'tag';
      }
    }
    slots.push(state === '"' || state === "'");
  }
  attributeValueSlots.set(strings, slots);
  return slots;
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  const inAttributeValue = inAttributeValueAt(strings);
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value, inAttributeValue[index] === true) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}
