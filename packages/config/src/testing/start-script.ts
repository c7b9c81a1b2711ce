import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** How production starts an app: its package.json `start` script, which its Dockerfile's CMD repeats. */
export interface StartScript {
  /** Node's flags, as the script passes them. */
  nodeFlags: string[];
  /** The bundle the script runs, absolute. */
  bundle: string;
}

/**
 * Reads `node <flags…> <bundle>.js` from an app's start script, so that the tests and the
 * benchmarks start services exactly as the images do. Throws when the script has another shape,
 * or when the bundle has not been built (`pnpm build`).
 */
export function startScriptOf(appDir: string): StartScript {
  const { scripts } = JSON.parse(readFileSync(path.join(appDir, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const [command, ...words] = scripts.start.split(' ');
  const bundle = words.at(-1);
  if (command !== 'node' || !bundle?.endsWith('.js'))
    throw new Error(`${appDir}: the start script should be \`node <flags> <bundle>.js\`, not ${scripts.start}`);
  const absolute = path.join(appDir, bundle);
  if (!existsSync(absolute)) throw new Error(`${absolute} is missing: run \`pnpm build\` first`);
  return { nodeFlags: words.slice(0, -1), bundle: absolute };
}
