import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OLDEST_SUPPORTED_NODE, unsupportedNodeProblem } from '../src/supported-node';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('the Node.js the product runs on', () => {
  it.each(['20.20.2', 'v22.11.0', '21.9.0', '18.20.8'])(
    'refuses %s in one paragraph that names it and the cure',
    (version) => {
      const problem = unsupportedNodeProblem(version, '/usr/bin/node');
      expect(problem).toContain(`needs Node.js ${OLDEST_SUPPORTED_NODE} or later`);
      expect(problem).toContain(`this is Node.js ${version.replace(/^v/, '')} (/usr/bin/node)`);
      expect(problem).not.toContain('\n');
    },
  );

  it.each(['22.12.0', 'v22.13.1', '23.0.0', '24.21.0', '30.1.0'])('runs on %s', (version) => {
    expect(unsupportedNodeProblem(version, '/usr/bin/node')).toBeUndefined();
  });

  it("is the oldest version package.json's engines names", () => {
    const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8'));
    expect(manifest.engines.node).toBe(`>=${OLDEST_SUPPORTED_NODE.replace(/\.0$/, '')}`);
  });

  // Debian 12's own Node.js (what this machine kind ships as /usr/bin/node), when it is older.
  const systemNode = '/usr/bin/node';
  const systemVersion = existsSync(systemNode)
    ? execFileSync(systemNode, ['--version'], { encoding: 'utf8' }).trim()
    : undefined;
  it.runIf(systemVersion !== undefined && unsupportedNodeProblem(systemVersion, systemNode) !== undefined)(
    `is checked before anything loads: the CLI under ${systemVersion} exits 1 with that paragraph alone`,
    () => {
      let outcome: { status: number | null; stderr: string; stdout: string } = { status: 0, stderr: '', stdout: '' };
      try {
        // What `pnpm cli --help` runs (package.json's script), under the older node.
        const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8'));
        const [, ...cliArguments] = (manifest.scripts.cli as string).split(' ');
        execFileSync(systemNode, [...cliArguments, '--help'], {
          cwd: repositoryRoot,
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (error) {
        outcome = error as typeof outcome;
      }
      expect(outcome.status).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toBe(`${unsupportedNodeProblem(systemVersion as string, systemNode)}\n`);
    },
  );
});
