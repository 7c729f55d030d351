// What the client package tells an integrator's app (and the merchant console) about permissions,
// roles and the link forms' limits agrees with the service that decides them: the role table with
// server/domain/permissions.ts, the limits with openapi.yaml's `maxLength`s. The console takes all of
// it from the client package, never from server/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIELD_LIMITS } from '../../client/limits.js';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS, ROLE_DESCRIPTIONS, ROLE_PERMISSIONS, ROLES } from '../../client/permissions.js';
import * as server from '../../server/domain/permissions.js';
import { readSpecDocument } from '../../server/http/contract.js';

type Property = { maxLength?: number; $ref?: string };
type Schema = Property & { properties?: Record<string, Property> };

describe('the client package on permissions and roles', () => {
  it('names the permissions and roles the service does, in its order, each with words', () => {
    expect(PERMISSIONS).toEqual([...server.PERMISSIONS]);
    expect(ROLES).toEqual([...server.ROLES]);
    for (const permission of PERMISSIONS) expect(PERMISSION_DESCRIPTIONS[permission]).toMatch(/^[A-Z].{5,}[^.]$/);
    for (const role of ROLES) expect(ROLE_DESCRIPTIONS[role].description).toMatch(/^[A-Z].+\.$/);
  });

  it('gives each role what the service gives it', () => {
    for (const role of ROLES) expect([...ROLE_PERMISSIONS[role]].sort(), role).toEqual([...server.ROLE_PERMISSIONS[role]].sort());
  });
});

describe('the link forms’ limits', () => {
  it('are the maxLengths of openapi.yaml', () => {
    const schemas = (readSpecDocument() as unknown as { components: { schemas: Record<string, Schema> } }).components.schemas;
    const maxLength = (schema: string, field: string) => {
      const property = schemas[schema]!.properties![field]!;
      return (property.$ref ? schemas[property.$ref.split('/').pop()!]! : property).maxLength;
    };
    for (const [field, limit] of Object.entries(FIELD_LIMITS)) {
      expect(maxLength('PaymentLinkWrite', field), field).toBe(limit);
      if (field !== 'phone_no') expect(maxLength('OpenPaymentLinkCreate', field), field).toBe(limit);
    }
  });
});

describe('the console', () => {
  it('imports nothing from server/', () => {
    const root = new URL('../../console/src/', import.meta.url).pathname;
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
    const offending = files(root).filter((file) => /from '(?:\.\.\/)+server\//.test(readFileSync(file, 'utf8')));
    expect(offending).toEqual([]);
  });
});
