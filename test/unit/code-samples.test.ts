// The reference's request samples are made from the operations: every operation has a curl and a
// client sample, each naming the operation's own method and path and sending its own body example.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { withCodeSamples, type CodeSample } from '../../scripts/code-samples.js';
import { SPEC_PATH } from '../../server/file-locations.js';

type Json = Record<string, unknown>;
const spec = parseYaml(readFileSync(SPEC_PATH, 'utf8')) as Json;
const sampled = withCodeSamples(spec);
const operations = Object.entries(sampled.paths as Record<string, Json>).flatMap(([path, item]) =>
  ['get', 'post', 'put', 'delete'].filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Json })),
);

describe('x-codeSamples in the rendered reference', () => {
  it('leaves openapi.yaml itself alone', () => {
    expect(JSON.stringify(spec)).not.toContain('x-codeSamples');
  });

  it.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    '%s has a curl and a client sample of its own',
    (_name, { path, method, operation }) => {
      const samples = operation['x-codeSamples'] as CodeSample[];
      expect(samples.map((s) => s.label)).toEqual(['curl', 'Client']);
      const [curl, client] = samples as [CodeSample, CodeSample];
      // Record ids are 24 hex digits; an event id has its evt_ prefix, a webhook endpoint's we_.
      expect(curl.source).toMatch(new RegExp(`^curl -X ${method.toUpperCase()} "\\$PAYMENTS_API${path.replace(/\{[^{}]+\}/g, '(?:evt_|we_)?[0-9a-f]{24}')}"`));
      expect(client.source).toContain(`payments.${method.toUpperCase()}('${path}'`);
      const example = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.example;
      const sent = /-d '(.*)'$/s.exec(curl.source)?.[1];
      if (example === undefined) expect(sent).toBeUndefined();
      else expect(JSON.parse(sent!.replace(/'\\''/g, "'"))).toEqual(example);
    },
  );
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
