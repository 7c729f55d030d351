// The serializers compiled from the contract's response schemas (server/http/serializers.ts) write
// what JSON.stringify writes: for every JSON answer openapi.yaml declares, on its example (or the
// value openapi-backend makes up from the schema) the same members with the same values, in the
// schema's order (JSON's objects are unordered; where an example lists its members in the schema's
// order, as the payment links' do, the very same text); and on answers that stray from the schema
// in the ways a serializer would otherwise "fix": a member left out, one the schema does not name, a
// null where a string is declared, a fraction in an integer, a number where a string is
// declared, an object where a scalar is, text that needs escaping.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadContract, type Contract } from '../../server/http/contract.js';
import { compileSerializer } from '../../server/http/serializers.js';

let contract: Contract;
beforeAll(async () => {
  contract = await loadContract();
});

/** Every operation and status whose answer is JSON. */
function jsonAnswers(): { operationId: string; status: number }[] {
  return contract.operations.flatMap((operation) =>
    operation.statuses
      .filter((status) => {
        const response = (contract.api.getOperation(operation.operationId)?.responses as Record<string, { content?: Record<string, unknown> }>)[String(status)];
        return response?.content?.['application/json'] !== undefined;
      })
      .map((status) => ({ operationId: operation.operationId, status })),
  );
}

describe('response serializers', () => {
  it("write JSON.stringify's text for the example of every JSON answer of the contract", () => {
    const answers = jsonAnswers();
    expect(answers.length).toBeGreaterThan(100);
    let compiled = 0;
    for (const { operationId, status } of answers) {
      const serialize = contract.operations.find((operation) => operation.operationId === operationId)!.serializerFor(status);
      if (!serialize) continue;
      compiled += 1;
      const { mock } = contract.api.mockResponseForOperation(operationId, { code: status });
      const written = serialize(mock);
      expect(JSON.parse(written), `${operationId} ${status}`).toStrictEqual(JSON.parse(JSON.stringify(mock)));
      if (operationId.endsWith('PaymentLink')) expect(written, `${operationId} ${status}`).toBe(JSON.stringify(mock));
    }
    // The hot paths' answers are compiled; a list's (an allOf) is written by JSON.stringify.
    for (const operationId of ['createPaymentLink', 'getPaymentLink'])
      expect(contract.operations.find((o) => o.operationId === operationId)!.serializerFor(200)).toBeDefined();
    expect(contract.operations.find((o) => o.operationId === 'listPaymentLinks')!.serializerFor(200)).toBeUndefined();
    expect(compiled).toBeGreaterThan(answers.length / 2);
  });

  it('write what JSON.stringify writes for answers that stray from their schema', () => {
    const serialize = compileSerializer({
      type: 'object',
      required: ['id', 'amount', 'name', 'paid'],
      properties: {
        id: { type: 'string' },
        amount: { type: 'integer' },
        name: { type: 'string' },
        note: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
        paid: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', additionalProperties: false, properties: { a: { type: 'integer' } } },
        success: { const: true },
      },
    })!;
    const bodies = [
      { id: 'a', amount: 1, name: 'x', note: null, paid: false, tags: [], nested: { a: 1 }, success: true },
      { id: 'a', amount: 1.5, name: null, paid: true },
      { id: 'a', amount: 1, name: undefined, paid: true, extra: { deep: [1, 'two', null] } },
      { id: 'quote " backslash \\ newline \n tab \t nul \u0000 line separator \u2028 lone \ud800 emoji 😀', amount: -0, name: 'é', paid: false },
      { id: 5, amount: '12', name: { an: 'object' }, paid: 0, note: 7 },
      { id: 'a', amount: Number.NaN, name: 'x', paid: true, tags: [1, null] },
      { id: 'a', amount: 9_007_199_254_740_991, name: 'x', paid: false, tags: ['a', 'b'], nested: { a: 2, b: 'kept' } },
    ];
    for (const body of bodies) expect(serialize(body)).toBe(JSON.stringify(body));
  });

  it('are not compiled for schemas a serializer cannot follow', () => {
    expect(compileSerializer(undefined)).toBeUndefined();
    expect(compileSerializer({ anyOf: [{ type: 'string' }, { type: 'integer' }] })).toBeUndefined();
    expect(compileSerializer({ allOf: [{ type: 'object' }, { type: 'object' }] })).toBeUndefined();
    expect(compileSerializer({ type: 'object', patternProperties: { '^x': { type: 'string' } } })).toBeUndefined();
  });
});
