// Every operation declares the permission it needs, start-up refuses one that does not, and the
// three places a reader learns the permissions (the x-permission, the description, the roles
// tables of openapi.yaml and docs/security.md) agree with server/domain/permissions.ts.
import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLES, ROLE_PERMISSIONS } from '../../server/domain/permissions.js';
import { loadContract, readSpecDocument } from '../../server/http/contract.js';

type Operations = Record<string, Record<string, Record<string, unknown>>>;

function documentWith(change: (operation: Record<string, unknown>) => void, operationId = 'getPayment'): Document {
  const document = structuredClone(readSpecDocument()) as unknown as { paths: Operations };
  const operation = Object.values(document.paths)
    .flatMap((item) => Object.values(item))
    .find((candidate) => candidate.operationId === operationId)!;
  change(operation);
  return document as unknown as Document;
}

/** The roles table as markdown rows: permission -> the roles holding it. */
function rolesTable(text: string): Record<string, string[]> {
  const rows: Record<string, string[]> = {};
  const lines = text.split('\n').map((line) => line.trim());
  const cellsOf = (line: string) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim());
  const start = lines.findIndex((line) => line.startsWith('| Permission |'));
  expect(start, 'a roles table').toBeGreaterThanOrEqual(0);
  const roles = cellsOf(lines[start]!).slice(1);
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  for (const line of lines.slice(start + 2, end)) {
    const [permission, ...cells] = cellsOf(line);
    rows[permission!.replaceAll('`', '')] = roles.filter((_, index) => cells[index] === '✓');
  }
  return rows;
}

const expectedTable = Object.fromEntries(PERMISSIONS.map((permission) => [permission, ROLES.filter((role) => ROLE_PERMISSIONS[role].includes(permission))]));

describe('x-permission', () => {
  it('start-up refuses an operation without one, naming it', async () => {
    await expect(loadContract(documentWith((operation) => delete operation['x-permission']))).rejects.toThrow(
      /GET \/payments\/\{payment_id\} \(getPayment\): no x-permission/,
    );
  });

  it('start-up refuses a permission that does not exist', async () => {
    await expect(loadContract(documentWith((operation) => (operation['x-permission'] = 'payments:steal')))).rejects.toThrow(
      /getPayment\): x-permission "payments:steal" is no permission/,
    );
  });

  it('start-up refuses `public` on a secured operation, and a further permission by media type that does not exist', async () => {
    await expect(loadContract(documentWith((operation) => (operation['x-permission'] = 'public')))).rejects.toThrow(/public must go with security/);
    await expect(loadContract(documentWith((operation) => (operation['x-permission-by-accept'] = { 'text/csv': 'csv' }), 'listPayments'))).rejects.toThrow(
      /x-permission-by-accept text\/csv is no permission/,
    );
  });

  it('every operation of the contract carries a valid one, and its description states it', async () => {
    const contract = await loadContract();
    expect(contract.operations.length).toBeGreaterThan(30);
    for (const operation of contract.operations) {
      const description = String(contract.api.getOperation(operation.operationId)?.description ?? '');
      expect(description, operation.operationId).toContain(`Requires \`${operation.permission}\``);
      for (const further of Object.values(operation.permissionByAccept)) expect(description, operation.operationId).toContain(`\`${further}\``);
    }
  });
});

describe('the roles table', () => {
  it("openapi.yaml's info description shows server/domain/permissions.ts", () => {
    const document = readSpecDocument() as unknown as { info: { description: string } };
    expect(rolesTable(document.info.description)).toEqual(expectedTable);
  });

  it('docs/security.md shows server/domain/permissions.ts', () => {
    expect(rolesTable(readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8'))).toEqual(expectedTable);
  });
});
