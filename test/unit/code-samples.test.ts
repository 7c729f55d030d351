// The reference's request samples are made from the operations: every operation has a curl sample,
// and every one an API key may call a client sample too, each naming the operation's own method and
// path, its caller as the contract's `security` says, and sending its own body example; the shell's
// variables are the README's ($API, $KEY, the cookie jar $J and $CSRF).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { withCodeSamples, type CodeSample } from '../../scripts/code-samples.js';
import { SPEC_PATH } from '../../server/file-locations.js';

type Json = Record<string, unknown>;
const spec = parseYaml(readFileSync(SPEC_PATH, 'utf8')) as Json;
const sampled = withCodeSamples(spec);
const operations = Object.entries(sampled.paths as Record<string, Json>).flatMap(([path, item]) =>
  ['get', 'post', 'put', 'patch', 'delete'].filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Json })),
);

describe('x-codeSamples in the rendered reference', () => {
  it('leaves openapi.yaml itself alone', () => {
    expect(JSON.stringify(spec)).not.toContain('x-codeSamples');
  });

  it.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    '%s has a curl sample, and a client sample where a key may call it',
    (_name, { path, method, operation }) => {
      const samples = operation['x-codeSamples'] as CodeSample[];
      const security = (operation.security ?? spec.security) as Record<string, unknown>[];
      const byKey = security.some((requirement) => 'bearerAuth' in requirement);
      expect(samples.map((s) => s.label)).toEqual(byKey ? ['curl', 'Client'] : ['curl']);
      const [curl, client] = samples as [CodeSample, CodeSample | undefined];
      // Record ids are 24 hex digits; an event id has its evt_ prefix, a webhook endpoint's we_.
      expect(curl.source).toMatch(new RegExp(`^curl -X ${method.toUpperCase()} "\\$API${path.replace(/\{[^{}]+\}/g, '(?:evt_|we_)?[0-9a-f]{24}')}"`));
      expect(curl.source).not.toMatch(/PAYMENTS_/);
      if (byKey) {
        expect(curl.source).toContain('-H "Authorization: Bearer $KEY"');
        expect(client!.source).toContain(`payments.${method.toUpperCase()}('${path}'`);
      } else {
        expect(curl.source).not.toContain('Authorization');
        // A member's session: the cookie jar, and the CSRF token on a write; sign-in itself needs neither.
        expect(curl.source.includes('-b "$J"'), 'sends the jar').toBe(security.length > 0);
        expect(curl.source.includes('X-CSRF-Token: $CSRF'), 'sends the CSRF token').toBe(security.length > 0 && method !== 'get');
      }
      const example = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.example;
      const sent = /-d '(.*)'$/s.exec(curl.source)?.[1];
      if (example === undefined) expect(sent).toBeUndefined();
      else expect(JSON.parse(sent!.replace(/'\\''/g, "'"))).toEqual(example);
    },
  );

  it('samples every operation, the PATCH ones included', () => {
    expect(operations.some((o) => o.method === 'patch')).toBe(true);
  });
});

describe('what the samples ask for', () => {
  const samplesOf = (path: string) => (sampled.paths as Record<string, Json>)[path]!.get as Json;
  const sources = (path: string) => (samplesOf(path)['x-codeSamples'] as CodeSample[]).map((s) => s.source);

  it('JSON, where the operation answers JSON', () => {
    const [curl, client] = sources('/payment-links/{payment_link_id}');
    expect(curl).toContain(`-H 'Accept: application/json'`);
    expect(client).not.toContain('parseAs');
  });

  it("a QR code's SVG, read as text, where the operation answers an image only", () => {
    for (const path of ['/payment-links/{payment_link_id}/qr', '/open-payment-links/{open_payment_link_id}/qr']) {
      const [curl, client] = sources(path);
      expect(curl, path).toContain(`-H 'Accept: image/svg+xml'`);
      expect(client, path).toContain(`parseAs: 'text'`);
    }
  });
});
