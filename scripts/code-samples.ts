// The request samples of the rendered reference (`x-codeSamples`, shown by Redoc beside each
// operation), made from the operation itself: its method, path, the examples of its path parameters
// and of its request body. One source for curl and for the client, so neither can drift from the
// contract or from the other; operations added later get theirs without anyone writing them.

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

const METHODS = ['get', 'post', 'put', 'delete'] as const;

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

  const curl = [`curl -X ${upper} "$PAYMENTS_API${concretePath}" \\`, `  -H "Authorization: Bearer $PAYMENTS_KEY" \\`, `  -H 'Accept: ${accept}'`];
  if (body !== undefined) {
    curl[curl.length - 1] += ' \\';
    curl.push(`  -H 'Content-Type: application/json' \\`, `  -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  }

  const options: string[] = [];
  if (Object.keys(pathParams).length > 0) options.push(`params: { path: ${JSON.stringify(pathParams).replace(/"([a-z_]+)":/g, '$1: ')} }`);
  if (body !== undefined) options.push(`body: ${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}`);
  // The client parses JSON unless told otherwise; an image is read as text (SVG) here.
  if (accept !== 'application/json') options.push(`parseAs: 'text'`);
  const client = [
    `import { createPaymentsClient } from '@payment-collection/client';`,
    ``,
    `const payments = createPaymentsClient({ baseUrl: process.env.PAYMENTS_API, apiKey: process.env.PAYMENTS_KEY });`,
    `const { data, error, response } = await payments.${upper}('${path}'${options.length > 0 ? `, {\n  ${options.join(',\n  ')},\n}` : ''});`,
  ];
  return [
    { lang: 'Shell', label: 'curl', source: curl.join('\n') },
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
