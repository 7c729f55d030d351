// The request path copies a few lines of openapi-backend's request shaping (routes.ts shapeRequest)
// so that routing and validation need not go through its per-request dispatcher. These properties
// hold it to the original: for generated requests to every operation, the validators it runs report
// exactly the errors openapi-backend's own validateRequest reports; and every status the HTTP layer
// answers by itself is one the spec declares for the operation.
import Router from '@koa/router';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadContract, type ContractOperation } from '../../server/http/contract.js';
import { routerPath, shapeRequest } from '../../server/http/routes.js';
import { parseQuery } from '../../server/http/query.js';
import { junkText, queryString, unknownKey } from '../property/arbitraries.js';
import { SEED } from '../property/harness.js';

const contract = await loadContract();

interface Parameter {
  name: string;
  in: string;
  style?: string;
  schema: { properties?: Record<string, unknown> };
}

function parametersOf(operation: ContractOperation): Parameter[] {
  return ((contract.api.getOperation(operation.operationId)?.parameters ?? []) as unknown as Parameter[]).filter((parameter) => parameter.in === 'query');
}

/** Query keys as clients send them (`filter[status]`). */
function queryKeys(operation: ContractOperation): string[] {
  return parametersOf(operation).flatMap((parameter) => [parameter.name]);
}

const pathSegment = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{24}$/),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('create-token', '%', '..', '%E2%82'),
);
const queryValue = fc.oneof(
  junkText,
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '100',
    '101',
    'true',
    'false',
    'Active',
    'Paid',
    '2022-01-01,2022-01-31',
    '2022-02-30,2022-03-01',
    'created_at',
    '-created_at',
    '',
  ),
);
const jsonBody = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
  {
    arbitrary: fc.dictionary(
      fc.constantFrom(
        'email',
        'currency',
        'amount',
        'minimum_amount',
        'title',
        'description',
        'redirect_url',
        'reference',
        'reference_2',
        'send_email',
        'phone_no',
        'extra',
      ),
      fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.constantFrom('MYR', 'myr', 'payer@example.com', '1000', '10.50', 'https://example.com/x', 'javascript:alert(1)'),
      ),
    ),
    weight: 4,
  },
);

function requestFor(operation: ContractOperation) {
  const segments = (operation.path.match(/\{[^{}]+\}/g) ?? []).length;
  const keys = queryKeys(operation);
  return fc.record({
    segments: fc.array(pathSegment, { minLength: segments, maxLength: segments }),
    pairs: fc.array(fc.tuple(fc.oneof(keys.length ? fc.constantFrom(...keys) : unknownKey, unknownKey, junkText), queryValue), { maxLength: 4 }),
    rawBrackets: fc.boolean(),
    body: jsonBody,
    idempotencyKey: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
  });
}

/** What each side reports, in order, without the parts that name Ajv's internal schema paths. */
const comparable = (errors: readonly { instancePath: string; keyword: string; params: unknown }[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));

describe('request shaping', () => {
  it.each(contract.operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s: the errors equal openapi-backend validateRequest for generated requests',
    (_name, operation) => {
      const router = new Router({ sensitive: true });
      const layer = router.register(routerPath(operation.path), [operation.method], () => {});
      let compared = 0;
      fc.assert(
        fc.property(requestFor(operation), (generated) => {
          let index = 0;
          const path = `/api${operation.path.replace(/\{[^{}]+\}/g, () => encodeURIComponent(generated.segments[index++]!))}`;
          const matched = router.match(path, operation.method).pathAndMethod[0];
          if (!matched) return; // a segment the router does not take as one (the contract's router says 404 too)
          const params = matched.params(path, matched.captures(path), {});
          const querystring = queryString(generated.pairs, generated.rawBrackets).replace(/^\?/, '');
          const headers: Record<string, string> = {
            'content-type': 'application/json',
            ...(generated.idempotencyKey !== undefined && { 'idempotency-key': generated.idempotencyKey }),
          };
          const text = generated.body === undefined ? undefined : JSON.stringify(generated.body);
          const ours = operation.validate(
            shapeRequest({ params, querystring, headers, body: text === undefined ? undefined : JSON.parse(text), mediaType: 'application/json' }),
          );
          const theirs = contract.api.validateRequest(
            { method: operation.method, path, headers, query: parseQuery(querystring) as never, body: text },
            contract.api.getOperation(operation.operationId)!,
          );
          expect(comparable(ours)).toEqual(comparable(theirs.errors));
          compared += 1;
        }),
        { seed: SEED, numRuns: 150 },
      );
      expect(compared, `${layer.path}: generated requests compared`).toBeGreaterThan(100);
    },
  );

  it('every status the HTTP layer answers by itself is declared by the operations it can answer it for', () => {
    const missing: string[] = [];
    for (const operation of contract.operations) {
      const own = [414, 429, 500];
      if (operation.secured) own.push(401);
      if (operation.bodySchema !== undefined) own.push(400, 413, 415);
      if (operation.bodySchema !== undefined || queryKeys(operation).length > 0 || operation.path.includes('{')) own.push(422);
      if (operation.method === 'POST' || operation.method === 'PUT') own.push(409, 422);
      for (const status of own) if (!operation.statuses.includes(status)) missing.push(`${operation.operationId} ${status}`);
    }
    expect(missing).toEqual([]);
  });
});
