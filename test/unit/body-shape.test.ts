// How deep a JSON body nests and how many values it holds, counted in one pass over its text before
// anything parses it (server/http/body.ts).
import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES, shapeProblem } from '../../server/http/body.js';

const deepest = (depth: number) => shapeProblem(`${'['.repeat(depth)}${']'.repeat(depth)}`, { depth: MAX_BODY_DEPTH, values: MAX_BODY_VALUES });
const within =
  (depth: number, values = 1_000) =>
  (text: string) =>
    shapeProblem(text, { depth, values });

describe('shapeProblem', () => {
  it('counts arrays and objects inside one another, not side by side', () => {
    expect(within(4)('{"a":[1,{"b":[]}]}')).toBeUndefined();
    expect(within(3)('{"a":[1,{"b":[]}]}')).toBe('depth');
    expect(within(2)(`[${'[],'.repeat(500)}[]]`)).toBeUndefined();
    expect(within(0)('3')).toBeUndefined();
    expect(within(0)('[]')).toBe('depth');
    expect(deepest(MAX_BODY_DEPTH)).toBeUndefined();
    expect(deepest(MAX_BODY_DEPTH + 1)).toBe('depth');
  });

  it('counts every element and member, at any depth: empty containers hold none', () => {
    const count = (text: string) => [0, 1, 2, 3, 4, 5, 6].find((values) => within(10, values)(text) === undefined);
    expect(count('{"a":[1,2]}')).toBe(3);
    expect(count('[ [ ] , { } ]')).toBe(2);
    expect(count(' { "a" : { "b" : [ "c" , "d" ] } , "e" : null } ')).toBe(5);
    expect(count('[]')).toBe(0);
    expect(count('"a,b,[c]"')).toBe(0);
    const list = (n: number) => JSON.stringify({ permissions: Array.from({ length: n }, () => 'payments:read') });
    expect(shapeProblem(list(MAX_BODY_VALUES - 1), { depth: MAX_BODY_DEPTH, values: MAX_BODY_VALUES })).toBeUndefined();
    expect(shapeProblem(list(MAX_BODY_VALUES), { depth: MAX_BODY_DEPTH, values: MAX_BODY_VALUES })).toBe('values');
  });

  it('skips brackets and commas inside strings, escaped quotes and backslashes included', () => {
    expect(within(1, 2)(JSON.stringify({ title: '[[[[{{{{,,,,' }))).toBeUndefined();
    expect(within(1, 2)(JSON.stringify({ title: 'a "quoted" [[[[ \\', next: '{{{{' }))).toBeUndefined();
    expect(within(2)(JSON.stringify({ title: '\\', inner: { deeper: [] } }))).toBe('depth');
  });

  it('is linear, and stops at the first limit passed: a megabyte nested or listed as far as it goes is refused in one pass', () => {
    const started = performance.now();
    expect(deepest(500_000)).toBe('depth');
    expect(shapeProblem(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`, { depth: MAX_BODY_DEPTH, values: MAX_BODY_VALUES })).toBe('depth');
    expect(shapeProblem(JSON.stringify(Array.from({ length: 300_000 }, () => 0)), { depth: MAX_BODY_DEPTH, values: MAX_BODY_VALUES })).toBe('values');
    expect(shapeProblem(`[${'"x",'.repeat(200_000)}"x"]`, { depth: MAX_BODY_DEPTH, values: 10_000_000 })).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
