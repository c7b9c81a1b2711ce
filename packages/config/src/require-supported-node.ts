import { unsupportedNodeProblem } from './supported-node';

/**
 * Imported first by every entry point (the services' main.ts, `pnpm start`, the CLI): an
 * unsupported Node.js is refused in one paragraph, exit 1, before anything else is loaded.
 */
const problem = unsupportedNodeProblem(process.versions.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
