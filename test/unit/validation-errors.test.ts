import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { customizeAjv } from '../../server/http/contract.js';
import { VALIDATION_MESSAGE, attributeName, laravelErrors, mergeFieldErrors } from '../../server/http/validation-errors.js';

// Real Ajv errors, from the Ajv the server uses, with instancePaths shaped the way openapi-backend
// shapes them: the body under `requestBody` (required when the operation's body is), query parameters
// under `query` (unknown ones rejected). Query parameters are coerced from text, as openapi-backend does.
const bodyAjv = customizeAjv(undefined, {});
const queryAjv = customizeAjv(undefined, { coerceTypes: true });

/** A cut-down PaymentLinkWrite / OpenPaymentLinkUpdate from openapi.yaml. */
const BODY = {
  type: 'object',
  required: ['currency', 'email', 'amount', 'title'],
  properties: {
    email: { type: 'string', maxLength: 254, format: 'email' },
    currency: { type: 'string', format: 'iso4217' },
    amount: { type: ['integer', 'string'], pattern: '^[0-9]+$', minimum: 500, maximum: 3000000 },
    title: { type: 'string', minLength: 1, maxLength: 50 },
    phone_no: { type: ['string', 'null'], maxLength: 20 },
    description: { type: ['string', 'null'], maxLength: 1000 },
    redirect_url: { type: ['string', 'null'], maxLength: 2048, format: 'http-url' },
    minimum_amount: { type: ['string', 'number'] },
    reference_2: { type: ['string', 'null'], minLength: 3, maxLength: 50 },
    code: { type: 'string', pattern: '^[A-Z]+$' },
    send_email: { type: 'boolean' },
    enabled_events: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
      items: { type: 'string', enum: ['*', 'payment.created', 'refund.succeeded'] },
    },
  },
} as const;

const QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: { type: 'integer', minimum: 1, maximum: 1000000 },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
    sort: { type: 'string', enum: ['created_at', '-created_at'] },
    'filter[status]': { type: 'string', enum: ['Active', 'Paid'] },
    'filter[reference]': { type: 'string', maxLength: 50 },
    'filter[created_at_between]': { type: 'string', format: 'date-range' },
    'filter[limit]': { type: 'integer', minimum: 1, maximum: 100 },
    'filter[card_last4]': {
      type: 'string',
      format: 'card-last4',
      minLength: 4,
      maxLength: 4,
      pattern: '^[0-9]{4}$',
      'x-restates': ['pattern', 'minLength', 'maxLength'],
    },
  },
} as const;

const validateBody = bodyAjv.compile({ type: 'object', additionalProperties: true, required: ['requestBody'], properties: { requestBody: BODY } });
const validateQuery = queryAjv.compile({ type: 'object', additionalProperties: true, properties: { query: QUERY } });

function bodyErrors(data: { requestBody?: unknown }): ErrorObject[] {
  expect(validateBody(data)).toBe(false);
  return validateBody.errors ?? [];
}

function queryErrors(query: Record<string, unknown>): ErrorObject[] {
  expect(validateQuery({ query })).toBe(false);
  return validateQuery.errors ?? [];
}

const VALID = { currency: 'MYR', email: 'payer@example.com', amount: 1000, title: 'Invoice 1001' };

/** Laravel errors for a body that is valid except for `changes`. */
function forBody(changes: Record<string, unknown>) {
  return laravelErrors(bodyErrors({ requestBody: { ...VALID, ...changes } }), BODY);
}

/** Laravel errors for a query, written here with filters as an object: `{filter: {limit: 1}}` is sent as `filter[limit]=1`. */
const forQuery = (query: Record<string, unknown>) =>
  laravelErrors(
    queryErrors(
      Object.fromEntries(
        Object.entries(query).flatMap(([name, value]) =>
          value !== null && typeof value === 'object' ? Object.entries(value).map(([member, inner]) => [`${name}[${member}]`, inner]) : [[name, value]],
        ),
      ),
    ),
  );

describe('Laravel attribute names', () => {
  it('shows underscores as spaces', () => {
    expect(attributeName('minimum_amount')).toBe('minimum amount');
    expect(attributeName('filter.created_at_between')).toBe('filter.created at between');
  });

  it('uses the seed text for the 422 message', () => {
    expect(VALIDATION_MESSAGE).toBe('The given data was invalid.');
  });
});

describe('laravelErrors: one keyword, one Laravel text', () => {
  it('required: "The x field is required." with underscores as spaces', () => {
    const { title: _title, ...withoutTitle } = VALID;
    expect(laravelErrors(bodyErrors({ requestBody: withoutTitle }), BODY)).toEqual({ title: ['The title field is required.'] });
    const schema = { type: 'object', required: ['minimum_amount'], properties: { minimum_amount: { type: ['string', 'number'] } } };
    const validate = bodyAjv.compile({ type: 'object', required: ['requestBody'], properties: { requestBody: schema } });
    expect(validate({ requestBody: {} })).toBe(false);
    expect(laravelErrors(validate.errors ?? [], schema)).toEqual({ minimum_amount: ['The minimum amount field is required.'] });
  });

  it('minLength 1: an empty string is a missing field, as Laravel sees it', () => {
    expect(forBody({ title: '' })).toEqual({ title: ['The title field is required.'] });
  });

  it('minLength above 1: "must be at least N characters."', () => {
    expect(forBody({ reference_2: 'ab' })).toEqual({ reference_2: ['The reference 2 must be at least 3 characters.'] });
  });

  it('maxLength: "must not be greater than N characters."', () => {
    expect(forBody({ title: 'x'.repeat(51) })).toEqual({ title: ['The title must not be greater than 50 characters.'] });
    expect(forBody({ phone_no: '1'.repeat(21) })).toEqual({ phone_no: ['The phone no must not be greater than 20 characters.'] });
  });

  it('arrays: item counts, duplicates and each member by its index, as Laravel names them', () => {
    expect(forBody({ enabled_events: [] })).toEqual({ enabled_events: ['The enabled events must have at least 1 item.'] });
    expect(forBody({ enabled_events: ['*', 'payment.created', 'refund.succeeded', '*'] })).toEqual({
      enabled_events: ['The enabled events must not have more than 3 items.', 'The enabled events field has a duplicate value.'],
    });
    expect(forBody({ enabled_events: ['*', '*'] })).toEqual({ enabled_events: ['The enabled events field has a duplicate value.'] });
    expect(forBody({ enabled_events: ['*', 'payment.nope'] })).toEqual({ 'enabled_events.1': ['The selected enabled events.1 is invalid.'] });
    expect(forBody({ enabled_events: 'payment.created' })).toEqual({ enabled_events: ['The enabled events must be an array.'] });
  });

  it('minimum and maximum: "must be at least N." and "must not be greater than N."', () => {
    expect(forBody({ amount: 499 })).toEqual({ amount: ['The amount must be at least 500.'] });
    expect(forBody({ amount: 3000001 })).toEqual({ amount: ['The amount must not be greater than 3000000.'] });
    expect(forQuery({ per_page: '101' })).toEqual({ per_page: ['The per page must not be greater than 100.'] });
    expect(forQuery({ page: '0' })).toEqual({ page: ['The page must be at least 1.'] });
  });

  it('type integer: "must be an integer."', () => {
    expect(forBody({ amount: true })).toEqual({ amount: ['The amount must be an integer.'] });
    // Laravel checks `required` first and stops there: a required field sent as null is missing.
    expect(forBody({ amount: null })).toEqual({ amount: ['The amount field is required.'] });
    expect(forBody({ title: null })).toEqual({ title: ['The title field is required.'] });
    expect(forBody({ description: 5 })).toEqual({ description: ['The description must be a string.'] });
    expect(forQuery({ per_page: 'ten' })).toEqual({ per_page: ['The per page must be an integer.'] });
  });

  it('type number: "must be a number."', () => {
    expect(forBody({ minimum_amount: true })).toEqual({ minimum_amount: ['The minimum amount must be a number.'] });
    expect(forBody({ minimum_amount: {} })).toEqual({ minimum_amount: ['The minimum amount must be a number.'] });
  });

  it('type boolean: "field must be true or false."', () => {
    expect(forBody({ send_email: 'yes' })).toEqual({ send_email: ['The send email field must be true or false.'] });
    expect(forBody({ send_email: 1 })).toEqual({ send_email: ['The send email field must be true or false.'] });
  });

  it('type string, nullable or not: "must be a string."', () => {
    expect(forBody({ title: 5 })).toEqual({ title: ['The title must be a string.'] });
    expect(forBody({ description: ['a'] })).toEqual({ description: ['The description must be a string.'] });
  });

  it('pattern on an [integer, string] type: "must be an integer."', () => {
    expect(forBody({ amount: '12.5' })).toEqual({ amount: ['The amount must be an integer.'] });
    expect(forBody({ amount: '1e3' })).toEqual({ amount: ['The amount must be an integer.'] });
    expect(forBody({ amount: '-500' })).toEqual({ amount: ['The amount must be an integer.'] });
  });

  it('pattern on a plain string: "format is invalid."', () => {
    expect(forBody({ code: 'abc' })).toEqual({ code: ['The code format is invalid.'] });
  });

  it('format email: "must be a valid email address."', () => {
    expect(forBody({ email: 'not-an-email' })).toEqual({ email: ['The email must be a valid email address.'] });
  });

  it('format iso4217: "must be a valid ISO 4217 currency code."', () => {
    expect(forBody({ currency: 'myr' })).toEqual({ currency: ['The currency must be a valid ISO 4217 currency code.'] });
    expect(forBody({ currency: 'ABC' })).toEqual({ currency: ['The currency must be a valid ISO 4217 currency code.'] });
  });

  it('format http-url: "format is invalid."', () => {
    expect(forBody({ redirect_url: 'javascript:alert(1)' })).toEqual({ redirect_url: ['The redirect url format is invalid.'] });
  });

  it('format date-range in a filter[name] parameter: keyed filter.<name>, "The filter.created at between format is invalid."', () => {
    expect(forQuery({ filter: { created_at_between: '2022-05-31,2022-05-01' } })).toEqual({
      'filter.created_at_between': ['The filter.created at between format is invalid.'],
    });
  });

  it('format card-last4, its length and pattern restated: one message, Laravel\'s digits:4, "The filter.card last4 must be 4 digits."', () => {
    for (const card_last4 of ['12a4', '123', '12345', '', '٤٢٤٢'])
      expect(forQuery({ filter: { card_last4 } }), card_last4).toEqual({ 'filter.card_last4': ['The filter.card last4 must be 4 digits.'] });
  });

  it('enum: "The selected x is invalid."', () => {
    expect(forQuery({ sort: 'title' })).toEqual({ sort: ['The selected sort is invalid.'] });
    expect(forQuery({ filter: { status: 'paid' } })).toEqual({ 'filter.status': ['The selected filter.status is invalid.'] });
  });

  it('additionalProperties: "The x field is prohibited.", nested keys with dots', () => {
    expect(forQuery({ pagesize: '10' })).toEqual({ pagesize: ['The pagesize field is prohibited.'] });
    expect(forQuery({ filter: { amount_over: '5' } })).toEqual({ 'filter.amount_over': ['The filter.amount over field is prohibited.'] });
  });

  it('nested query types and bounds are keyed filter.<name>', () => {
    expect(forQuery({ filter: { limit: 'many' } })).toEqual({ 'filter.limit': ['The filter.limit must be an integer.'] });
    expect(forQuery({ filter: { limit: '101' } })).toEqual({ 'filter.limit': ['The filter.limit must not be greater than 100.'] });
  });
});

describe('laravelErrors: what is reported together', () => {
  it('reports every failing field at once', () => {
    expect(forBody({ email: 'x', currency: 'usd', amount: 499, title: 'x'.repeat(51) })).toEqual({
      currency: ['The currency must be a valid ISO 4217 currency code.'],
      email: ['The email must be a valid email address.'],
      amount: ['The amount must be at least 500.'],
      title: ['The title must not be greater than 50 characters.'],
    });
    expect(forQuery({ per_page: '101', filter: { created_at_between: 'May' } })).toEqual({
      per_page: ['The per page must not be greater than 100.'],
      'filter.created_at_between': ['The filter.created at between format is invalid.'],
    });
  });

  it('reports every failing rule of a field that has the right type', () => {
    const url = `javascript:${'a'.repeat(2048)}`;
    expect(forBody({ redirect_url: url })).toEqual({
      redirect_url: ['The redirect url must not be greater than 2048 characters.', 'The redirect url format is invalid.'],
    });
  });

  it('a type error shadows the other errors of the same field', () => {
    const errors = bodyErrors({ requestBody: { ...VALID, amount: 12.5 } });
    // Ajv reports both `type` and `minimum` for 12.5; Laravel stops at "integer".
    expect(errors.map((error) => error.keyword)).toEqual(['type', 'minimum']);
    expect(laravelErrors(errors, BODY)).toEqual({ amount: ['The amount must be an integer.'] });
  });

  it('a required or type error shadows errors of the same field reported before it', () => {
    const tooLong = bodyErrors({ requestBody: { ...VALID, title: 'x'.repeat(51) } });
    const { title: _title, ...withoutTitle } = VALID;
    const missing = bodyErrors({ requestBody: withoutTitle });
    expect(laravelErrors([...tooLong, ...missing], BODY)).toEqual({ title: ['The title field is required.'] });
    const notString = bodyErrors({ requestBody: { ...VALID, title: 5 } });
    expect(laravelErrors([...tooLong, ...notString], BODY)).toEqual({ title: ['The title must be a string.'] });
  });

  const EVERY_REQUIRED = {
    currency: ['The currency field is required.'],
    email: ['The email field is required.'],
    amount: ['The amount field is required.'],
    title: ['The title field is required.'],
  };

  it('a body that is null reports every required field of the body schema', () => {
    const errors = bodyErrors({ requestBody: null });
    expect(errors).toMatchObject([{ instancePath: '/requestBody', keyword: 'type' }]);
    expect(laravelErrors(errors, BODY)).toEqual(EVERY_REQUIRED);
  });

  it('a body that is an array or a scalar reports every required field of the body schema', () => {
    expect(laravelErrors(bodyErrors({ requestBody: [] }), BODY)).toEqual(EVERY_REQUIRED);
    expect(laravelErrors(bodyErrors({ requestBody: [VALID] }), BODY)).toEqual(EVERY_REQUIRED);
    expect(laravelErrors(bodyErrors({ requestBody: 'currency=MYR' }), BODY)).toEqual(EVERY_REQUIRED);
  });

  it('a missing body reports every required field of the body schema', () => {
    const errors = bodyErrors({});
    expect(errors).toMatchObject([{ instancePath: '', keyword: 'required', params: { missingProperty: 'requestBody' } }]);
    expect(laravelErrors(errors, BODY)).toEqual(EVERY_REQUIRED);
  });

  it('an empty object reports every required field too', () => {
    expect(laravelErrors(bodyErrors({ requestBody: {} }), BODY)).toEqual(EVERY_REQUIRED);
  });
});

describe('laravelErrors: field order', () => {
  it('follows the schema: required fields in their listed order, then the other properties', () => {
    const errors = bodyErrors({
      requestBody: { redirect_url: 'ftp://x', description: 5, title: 'x'.repeat(51), phone_no: '1'.repeat(21), email: 'x' },
    });
    expect(Object.keys(laravelErrors(errors, BODY))).toEqual(['currency', 'email', 'amount', 'title', 'phone_no', 'description', 'redirect_url']);
    // The reverse input order gives the same output order.
    expect(Object.keys(laravelErrors([...errors].reverse(), BODY))).toEqual([
      'currency',
      'email',
      'amount',
      'title',
      'phone_no',
      'description',
      'redirect_url',
    ]);
  });
});

describe('mergeFieldErrors: rule errors next to schema errors', () => {
  it('never overrides a schema error of the same field', () => {
    const schemaErrors = forBody({ amount: '12.5' });
    expect(mergeFieldErrors(schemaErrors, { amount: ['The amount must be at least 500.'] }, BODY)).toEqual({ amount: ['The amount must be an integer.'] });
  });

  it('adds rule errors of fields the schema accepted, in schema order', () => {
    const schemaErrors = forBody({ title: 'x'.repeat(51), email: 'x' });
    const merged = mergeFieldErrors(
      schemaErrors,
      { amount: ['The amount must be at least 500.'], minimum_amount: ['The minimum amount must be a number.'] },
      BODY,
    );
    expect(merged).toEqual({
      email: ['The email must be a valid email address.'],
      amount: ['The amount must be at least 500.'],
      title: ['The title must not be greater than 50 characters.'],
      minimum_amount: ['The minimum amount must be a number.'],
    });
    expect(Object.keys(merged)).toEqual(['email', 'amount', 'title', 'minimum_amount']);
  });

  it('returns the rule errors alone when the schema found nothing', () => {
    expect(mergeFieldErrors({}, { amount: ['The amount must be at least 500.'] }, BODY)).toEqual({ amount: ['The amount must be at least 500.'] });
  });
});
