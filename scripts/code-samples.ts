// The request samples of the rendered reference (`x-codeSamples`, shown by Redoc beside each
// operation), made from the operation itself: its method, path, the examples of its path parameters
// and of its request body. One source for curl and for the client, so neither can drift from the
// contract or from the other; operations added later get theirs without anyone writing them. The
// variables are the README's: `$API` where the API answers, `$KEY` an API key, and for a member's
// session the cookie jar `$J` and the token `$CSRF` of GET /auth/me.

type Json = Record<string, unknown>;

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  $ref?: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function resolve<T>(document: Json, node: T): T {
  const ref = (node as { $ref?: string } | undefined)?.$ref;
  if (!ref) return node;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as Json)[key], document) as T;
}

function bodyExample(document: Json, operation: Json): unknown {
  const body = resolve(document, operation.requestBody as Json | undefined);
  const media = (body?.content as Record<string, Json> | undefined)?.['application/json'];
  return media?.example;
}

type Caller = 'key' | 'session' | 'anyone';

/** Who may call: an API key where the operation's `security` (or the document's) names one, a signed-in member, or anyone (`security: []`). */
function callerOf(document: Json, operation: Json): Caller {
  const security = (operation.security ?? document.security ?? []) as Record<string, unknown>[];
  if (security.length === 0) return 'anyone';
  return security.some((requirement) => 'bearerAuth' in requirement) ? 'key' : 'session';
}

/** Whether the operation's success sets the session cookie (signing in, a new session after a change), which curl then keeps in the jar. */
function setsCookie(document: Json, operation: Json): boolean {
  const success = resolve(document, (operation.responses as Record<string, Json> | undefined)?.['200']);
  return 'Set-Cookie' in ((success?.headers as Json | undefined) ?? {});
}

/** How a sample names its caller: the key, or the session's cookie jar and, on a write, its CSRF token. */
function credentials(caller: Caller, method: string, keepsCookie: boolean): string[] {
  if (caller === 'key') return [`-H "Authorization: Bearer $KEY"`];
  const jar = [...(caller === 'session' ? [`-b "$J"`] : []), ...(keepsCookie ? [`-c "$J"`] : [])];
  return caller === 'session' && method !== 'get' ? [...jar, `-H "X-CSRF-Token: $CSRF"`] : jar;
}

/** What a sample asks for: JSON, unless the operation's success is something else only (a QR code's image). */
function acceptedType(document: Json, operation: Json): string {
  const success = resolve(document, (operation.responses as Record<string, Json> | undefined)?.['200']);
  const types = Object.keys((success?.content as Json | undefined) ?? {});
  return types.length === 0 || types.includes('application/json') ? 'application/json' : types[0]!;
}

export function samplesFor(document: Json, path: string, method: string, operation: Json, pathItem: Json): CodeSample[] {
  const parameters = [...((pathItem.parameters as Parameter[] | undefined) ?? []), ...((operation.parameters as Parameter[] | undefined) ?? [])].map((p) =>
    resolve(document, p),
  );
  const pathParams = Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, String(p.example ?? `<${p.name}>`)]));
  const concretePath = path.replace(/\{([^{}]+)\}/g, (_match, name: string) => pathParams[name] ?? `<${name}>`);
  const body = bodyExample(document, operation);
  const upper = method.toUpperCase();
  const accept = acceptedType(document, operation);

  const caller = callerOf(document, operation);
  const options = [...credentials(caller, method, setsCookie(document, operation)), `-H 'Accept: ${accept}'`];
  if (body !== undefined) options.push(`-H 'Content-Type: application/json'`, `-d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  const curl = [`curl -X ${upper} "$API${concretePath}"`, ...options.map((option) => `  ${option}`)].join(' \\\n');
  if (caller !== 'key') return [{ lang: 'Shell', label: 'curl', source: curl }];

  const clientOptions: string[] = [];
  if (Object.keys(pathParams).length > 0) clientOptions.push(`params: { path: ${JSON.stringify(pathParams).replace(/"([a-z_]+)":/g, '$1: ')} }`);
  if (body !== undefined) clientOptions.push(`body: ${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}`);
  // The client parses JSON unless told otherwise; an image is read as text (SVG) here.
  if (accept !== 'application/json') clientOptions.push(`parseAs: 'text'`);
  const client = [
    `import { createPaymentsClient } from '@payment-collection/client';`,
    ``,
    `const payments = createPaymentsClient({ baseUrl: 'http://localhost:3000/api', apiKey: process.env.PAYMENTS_KEY });`,
    `const { data, error, response } = await payments.${upper}('${path}'${clientOptions.length > 0 ? `, {\n  ${clientOptions.join(',\n  ')},\n}` : ''});`,
  ];
  return [
    { lang: 'Shell', label: 'curl', source: curl },
    { lang: 'JavaScript', label: 'Client', source: client.join('\n') },
  ];
}

/** A copy of the document with `x-codeSamples` on every operation under `paths`. */
export function withCodeSamples(document: Json): Json {
  const copy = structuredClone(document);
  for (const [path, pathItem] of Object.entries((copy.paths as Record<string, Json> | undefined) ?? {})) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      if (operation) operation['x-codeSamples'] = samplesFor(copy, path, method, operation, pathItem);
    }
  }
  return copy;
}
