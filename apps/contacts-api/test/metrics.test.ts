import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useStack } from './support/use-stack';

const world = useStack();

/** A path segment as a scanner makes it up: letters only, nothing in it looks like an id. */
const madeUp = () =>
  randomBytes(9)
    .toString('base64')
    .replace(/[^A-Za-z]/g, 'q')
    .toLowerCase();

describe('/metrics under made-up paths', () => {
  it('labels requests the routers answered without a route (405, OPTIONS) by their template, not their path', async () => {
    const segments: string[] = [];
    for (let round = 0; round < 40; round++) {
      const segment = madeUp();
      segments.push(segment);
      for (const [method, path] of [
        ['PUT', `/v4/contacts/${segment}`],
        ['OPTIONS', `/v4/contacts/${segment}`],
        ['PUT', `/v4/contacts/${segment}/image`],
        ['PUT', `/v3/contacts/${segment}`],
        ['OPTIONS', `/docs/${segment}`],
        ['PUT', `/v4/groups/${segment}/guests`],
      ] as const) {
        await (await fetch(`${world.stack.apiUrl}${path}`, { method })).arrayBuffer();
      }
    }
    const text = await (await fetch(`${world.stack.apiUrl}/metrics`)).text();
    const series = text.split('\n').filter((line) => line.startsWith('http_requests_total{'));
    for (const segment of segments) expect(text).not.toContain(segment);
    expect(series.some((line) => line.includes('route="/v4/contacts/:id"') && line.includes('status="405"'))).toBe(
      true,
    );
    // A bounded number of series, whatever the number of paths.
    expect(series.length).toBeLessThan(40);
  });
});
