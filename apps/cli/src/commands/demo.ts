import { randomBytes } from 'node:crypto';
import { addMemberToGroup, createBusinessCategory, createGroup, registerClient, registerMember } from '@contacts/auth';
import { portFrom, urlFrom } from '@contacts/config';
import { dataDirectory } from '@contacts/db';
import { runningPlatformUrl } from '../running-platform';
import type { Command } from './index';

/**
 * A demo member in a group, some business categories and an OAuth application whose redirect
 * URI is local: everything the README's quick start needs, with fresh credentials each run.
 */
export const demoCommand: Command = {
  summary: 'demo',
  description:
    'Creates a demo member (with a fresh password), a group, three categories and an OAuth application with a ' +
    'local redirect URI, and prints an authorize URL to try the flow.',
  options: {},
  required: [],
  run: async (_values, { db, env }) => {
    // Where `pnpm start` serves: the one running for this DATA_DIR when neither PORT nor
    // PUBLIC_URL is given here, else as these settings say. Read before anything is written.
    const running = env.PORT || env.PUBLIC_URL ? undefined : runningPlatformUrl(dataDirectory(env));
    const publicUrl = running ?? urlFrom(env, 'PUBLIC_URL', `http://localhost:${portFrom(env, 'PORT', 3000)}`);
    const runningUrl = running === undefined ? undefined : new URL(running);
    const port = runningUrl
      ? Number(runningUrl.port || (runningUrl.protocol === 'https:' ? 443 : 80))
      : portFrom(env, 'PORT', 3000);
    // Nothing listens there: any port other than the product's will do, within 1–65535.
    const redirectUri = `http://localhost:${port <= 64535 ? port + 1000 : port - 1000}/callback`;
    const suffix = randomBytes(3).toString('hex');
    const password = randomBytes(9).toString('base64url');
    // All or nothing: a refusal half-way must not leave half a demo behind.
    const { member, group, categories, client } = await db.transaction(async (trx) => {
      const member = await registerMember(trx, { email: `demo-${suffix}@example.com`, name: 'Demo Member', password });
      const group = await createGroup(trx, { name: `Demo group ${suffix}` });
      await addMemberToGroup(trx, { group: group.id, member: member.id });
      const categories = [];
      for (const name of ['Retail', 'Services', 'Technology']) {
        categories.push(await createBusinessCategory(trx, { name: `${name} ${suffix}` }));
      }
      const client = await registerClient(trx, {
        ownerId: member.id,
        name: 'Demo application',
        redirectUris: [redirectUri],
      });
      return { member, group, categories, client };
    });
    const encodedRedirectUri = encodeURIComponent(client.redirect_uris[0] ?? '');
    // A first run often comes before `pnpm start`: the links below would then lead nowhere.
    const startFirst =
      running === undefined && !env.PORT && !env.PUBLIC_URL
        ? `No pnpm start is running for this DATA_DIR: unless the product runs elsewhere, start it with \`pnpm start\` in another terminal, so that ${publicUrl} answers. Then open`
        : 'Open';
    return {
      member: { ...member, password },
      group,
      categories,
      client,
      authorize_url: `${publicUrl}/oauth/authorize?client_id=${client.client_id}&redirect_uri=${encodedRedirectUri}&response_type=code&scope=*&state=demo`,
      // Nothing listens at the demo's redirect URI: a first run should not read that error page as a failure.
      next_step:
        `${startFirst} authorize_url, sign in as the member and allow the application. The browser then goes to the ` +
        `redirect URI (${client.redirect_uris[0]}), where nothing listens, so it shows an error page: the code is ` +
        'in its address bar (?code=…). Within 60 s, put it in place of CODE in token_request and run that.',
      token_request:
        `curl -s ${publicUrl}/oauth/token -d grant_type=authorization_code -d code=CODE ` +
        `-d redirect_uri=${encodedRedirectUri} -d client_id=${client.client_id} -d client_secret=${client.client_secret}`,
    };
  },
};
