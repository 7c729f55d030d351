// Start-up reads the parsed openapi.yaml that `npm run generate` keeps, but only while it was made
// from the very text on disk: an edited spec must never be served from a stale copy.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readSpecDocument, specHash } from '../../server/http/contract.js';
import { SPEC_PATH } from '../../server/file-locations.js';

const dir = mkdtempSync(join(tmpdir(), 'spec-document-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const specFile = join(dir, 'openapi.yaml');
const parsedFile = join(dir, 'openapi.json');
const yamlText = 'openapi: 3.1.0\ninfo:\n  title: From the YAML\n  version: 1.0.0\npaths: {}\n';

describe('the document the contract is loaded from', () => {
  it('is the generated JSON while its hash matches the YAML', () => {
    writeFileSync(specFile, yamlText);
    writeFileSync(parsedFile, JSON.stringify({ source_sha256: specHash(yamlText), document: { marker: 'from the JSON' } }));
    expect(readSpecDocument(specFile, parsedFile)).toEqual({ marker: 'from the JSON' });
  });

  it('is the YAML itself once the YAML changed, or without the JSON', () => {
    writeFileSync(parsedFile, JSON.stringify({ source_sha256: specHash('an older text'), document: { marker: 'stale' } }));
    expect(readSpecDocument(specFile, parsedFile)).toEqual(parseYaml(yamlText));
    expect(readSpecDocument(specFile, join(dir, 'missing.json'))).toEqual(parseYaml(yamlText));
    writeFileSync(parsedFile, '{ not json');
    expect(readSpecDocument(specFile, parsedFile)).toEqual(parseYaml(yamlText));
  });

  it('equals openapi.yaml as parsed, for the repository spec', () => {
    expect(readSpecDocument()).toEqual(parseYaml(readFileSync(SPEC_PATH, 'utf8')));
  });
});
