/** The oldest Node.js the product runs on; package.json's `engines` says the same (a test holds them together). */
export const OLDEST_SUPPORTED_NODE = '22.12.0';

/**
 * Why this Node.js cannot run the product, or undefined when it can. Node 20 (what Debian 12
 * and many machines still ship) started the product with nothing but pnpm's and oidc-provider's
 * warnings, and then ran on a runtime without security fixes (end of life) that neither is tested on.
 */
export function unsupportedNodeProblem(version: string, executable: string): string | undefined {
  const parts = (text: string) => text.replace(/^v/, '').split('.').map(Number);
  const [major = 0, minor = 0, patch = 0] = parts(version);
  const [needMajor = 0, needMinor = 0, needPatch = 0] = parts(OLDEST_SUPPORTED_NODE);
  const supported =
    major !== needMajor ? major > needMajor : minor !== needMinor ? minor > needMinor : patch >= needPatch;
  if (supported) return undefined;
  return (
    `Member contacts needs Node.js ${OLDEST_SUPPORTED_NODE} or later (24 LTS recommended); this is Node.js ` +
    `${version.replace(/^v/, '')} (${executable}). Install a newer one and put it first on PATH, for example ` +
    '`npm install --prefix ~/.node24 node@24 && export PATH=~/.node24/node_modules/.bin:$PATH`, then run the command again.'
  );
}
