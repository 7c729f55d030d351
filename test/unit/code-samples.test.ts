// The reference's request samples are made from the operations: every operation has a curl and a
// client sample, each naming the operation's own method and path and sending its own body example.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { withCodeSamples, type CodeSample } from '../../scripts/code-samples.js';
import { SPEC_PATH } from '../../server/paths.js';

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
      expect(curl.source).toMatch(new RegExp(`^curl -X ${method.toUpperCase()} "\\$PAYMENTS_API${path.replace(/\{[^{}]+\}/g, '[0-9a-f]{24}')}"`));
      expect(client.source).toContain(`payments.${method.toUpperCase()}('${path}'`);
      const example = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.example;
      const sent = /-d '(.*)'$/s.exec(curl.source)?.[1];
      if (example === undefined) expect(sent).toBeUndefined();
      else expect(JSON.parse(sent!.replace(/'\\''/g, "'"))).toEqual(example);
    },
  );
});
