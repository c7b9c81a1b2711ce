/**
 * A setting whose name is misspelt is not refused, it is ignored: `JANITOR_INTERVALL=0` left the
 * janitor on, `DATABSE_URL=…` gave `pnpm start` its embedded database, without a word. Every
 * service reads its settings through a `SettingReads`, which records the names it reads; a
 * variable that is set, never read, and one or two letters from a name that was, is reported.
 * The names come from the readers themselves, so no second list of settings can fall behind.
 */
export class SettingReads {
  /** The environment to read the settings from; every name read through it is recorded. */
  readonly env: NodeJS.ProcessEnv;
  readonly #read = new Set<string>();

  constructor(private readonly source: NodeJS.ProcessEnv) {
    const read = this.#read;
    this.env = new Proxy(source, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name);
      },
      has(target, name) {
        if (typeof name === 'string') read.add(name);
        return Reflect.has(target, name);
      },
    });
  }

  /**
   * Every name read so far, in the order first read: the settings of the code that read through
   * `env` (what the documentation tests compare the README and docker-compose.yml with).
   */
  names(): string[] {
    return [...this.#read];
  }

  /** Variables set but never read whose name is that close to one read: each with the setting it likely meant. */
  misspellings(): Misspelling[] {
    const found: Misspelling[] = [];
    for (const [variable, value] of Object.entries(this.source)) {
      if (value === undefined || this.#read.has(variable)) continue;
      const setting = closestSetting(variable, this.#read);
      if (setting) found.push({ variable, setting });
    }
    return found;
  }
}

export interface Misspelling {
  /** The variable that is set (never its value: it may be a secret). */
  variable: string;
  /** The setting it is one or two letters from. */
  setting: string;
}

export function describeMisspelling({ variable, setting }: Misspelling): string {
  return `${variable} is set but is not a setting, so it is ignored: did you mean ${setting}?`;
}

/**
 * `env` with some variables given other values, read through: what is read stays recorded
 * (a spread copy would hide the reads from a SettingReads).
 */
export function environmentWith(env: NodeJS.ProcessEnv, values: Record<string, string>): NodeJS.ProcessEnv {
  const given = (name: string | symbol): name is string => typeof name === 'string' && Object.hasOwn(values, name);
  return new Proxy(env, {
    get: (target, name) => (given(name) ? values[name] : Reflect.get(target, name)),
    has: (target, name) => given(name) || Reflect.has(target, name),
  });
}

/**
 * The name read that `variable` is closest to, if it is that close: the same letters in another
 * case, or a slip (closestName; HOST is not taken for PORT).
 */
function closestSetting(variable: string, read: ReadonlySet<string>): string | undefined {
  return closestName(
    variable.toUpperCase(),
    [...read].filter((setting) => /^[A-Z][A-Z0-9_]+$/.test(setting)),
  );
}

/**
 * The name among `names` that `word` is a slip for, if any: at most one edit away (two for names
 * of 8 characters or more), the closest first. Also for the CLI's flags and commands.
 */
export function closestName(word: string, names: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const allowed = name.length >= 8 ? 2 : 1;
    const distance = editDistance(word, name, allowed);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * Edits (insert, delete, substitute, swap two neighbours) between `a` and `b`; anything over
 * `limit` is reported as limit + 1.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(value);
    }
    rows.push(row);
  }
  return Math.min(rows[a.length]?.[b.length] ?? limit + 1, limit + 1);
}

/**
 * A refusal that names a setting also names a misspelt variable meant for it: "DATABASE_URL must
 * be set in production" is answered before any warning could be (DATABSE_URL is set: …).
 */
export function withMisspellingHints(error: unknown, reads: SettingReads): unknown {
  if (!(error instanceof Error)) return error;
  const hints = reads
    .misspellings()
    .filter(({ setting }) => new RegExp(`\\b${setting}\\b`).test(error.message))
    .map(({ variable, setting }) => `${variable} is set: a misspelling of ${setting}?`);
  if (hints.length > 0) error.message += ` (${hints.join('; ')})`;
  return error;
}
