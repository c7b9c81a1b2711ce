import { afterAll, beforeAll } from 'vitest';
import { aClient, type Client } from './factories';
import { type Stack, type StackOptions, startStack } from './servers';

/** A test file's stack, and the client most of its tests send their requests with. */
export interface StackInUse {
  readonly stack: Stack;
  /** A member of its own with a read-and-write personal token (aClient's defaults). */
  readonly client: Client;
}

/**
 * Starts a stack before the file's tests (beforeAll) and closes it after them (afterAll), with a
 * default client unless `client: false` (files whose tests each make their own). Call it at the
 * top level of a test file, where its `let stack` / `beforeAll` / `afterAll` would have been.
 *
 * The properties are getters: the stack only exists once beforeAll ran, so the returned object
 * is read inside hooks and tests (`world.client.json(...)`), never destructured at the top level.
 */
export function useStack(options?: StackOptions & { client?: true }): StackInUse;
export function useStack(options: StackOptions & { client: false }): Pick<StackInUse, 'stack'>;
export function useStack({ client: withClient = true, ...stackOptions }: StackOptions & { client?: boolean } = {}) {
  let stack: Stack | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    stack = await startStack(stackOptions);
    if (withClient) client = await aClient(stack);
  });
  afterAll(async () => stack?.close());
  return {
    get stack() {
      if (!stack) throw new Error('useStack: the stack is read before its beforeAll ran');
      return stack;
    },
    get client() {
      if (!client) throw new Error('useStack: the client is read before its beforeAll ran, or with client: false');
      return client;
    },
  };
}
