// Server-rendered HTML without a template engine: every interpolated value is escaped unless it is
// already Html (built by this same tag), so a link's title or a payer's input can never become markup.
import escapeHtml from 'escape-html';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** What frames a page beyond its own body: its language, extra stylesheets, a header and footer of its own. */
export interface PageFrame {
  /** BCP 47 tag of the page's language. */
  lang?: string;
  /** Stylesheets after the pages' own (a merchant's brand colours), from the site's root. */
  stylesheets?: string[];
  header?: Html;
  footer?: Html;
}

export function page(title: string, body: Html, frame: PageFrame = {}): string {
  return html`<!doctype html>
<html lang="${frame.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="stylesheet" href="/assets/pay.css">
${(frame.stylesheets ?? []).map(
  (href) => html`<link rel="stylesheet" href="${href}">
`,
)}</head>
<body>
${frame.header ?? ''}
<main class="card">
${body}
</main>
<footer>${frame.footer ?? 'Payment Collection Service'}</footer>
</body>
</html>
`.value;
}

export const STYLESHEET = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f8;color:#1d2430;padding:16px}
.card{max-width:480px;margin:24px auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin:0 0 8px}
.amount{font-size:2rem;font-weight:700;margin:8px 0 16px}
.muted{color:#5b6472}
form{display:grid;gap:12px;margin-top:16px}
.field{display:grid;gap:4px}
label{font-weight:600;font-size:.95rem}
.hint{font-size:.9rem}
input{font:inherit;padding:10px 12px;border:1px solid #c4cad3;border-radius:8px;width:100%}
input[readonly]{background:#f3f5f8}
input[aria-invalid=true]{border-color:#c62828}
.row{display:grid;grid-template-columns:1fr 1fr;grid-template-rows:auto auto auto;gap:0 12px}
.row .field{grid-row:span 3;grid-template-rows:subgrid;row-gap:4px}
.row .field>label{align-self:end}
button{font:inherit;font-weight:700;padding:12px;border:0;border-radius:8px;background:var(--brand,#1f5eff);color:var(--on-brand,#fff);cursor:pointer}
button:focus-visible,a:focus-visible,input:focus-visible,summary:focus-visible{outline:3px solid #1d2430;outline-offset:2px}
.merchant{max-width:480px;margin:8px auto 0;display:flex;align-items:center;gap:12px;flex-wrap:wrap}
.merchant img{max-height:48px;max-width:160px;width:auto;height:auto}
.merchant-name{font-weight:700;font-size:1.1rem;margin:0}
.languages{max-width:480px;margin:8px auto 0;font-size:.95rem}
.languages ul{list-style:none;display:flex;gap:16px;flex-wrap:wrap;margin:0;padding:0}
.languages a{color:#1a4fd6;display:inline-block;padding:4px 0}
.languages a[aria-current]{color:#1d2430;font-weight:700;text-decoration:none}
.error-summary{border:2px solid #c62828;border-radius:8px;padding:12px;margin:12px 0}
.error-summary h2{font-size:1rem;margin:0 0 4px}
.error-summary a{color:#8e1c1c}
.contact{font-size:.9rem}
.error{color:#b71c1c;font-weight:400;font-size:.9rem}
.alert{background:#fdecea;color:#8e1c1c;border-radius:8px;padding:12px}
.success{background:#e8f5e9;color:#1b5e20;border-radius:8px;padding:12px}
details{margin-top:16px;font-size:.9rem}
table{border-collapse:collapse;width:100%}td{padding:4px 0;vertical-align:top}
code{font-size:.9em}
footer{text-align:center;color:#5b6472;font-size:.8rem}
@media (max-width:420px){.card{padding:16px;margin:8px auto}.amount{font-size:1.6rem}}
.poster{text-align:center}
.poster h1{overflow-wrap:anywhere}
.qr svg{display:block;width:100%;max-width:320px;height:auto;margin:0 auto}
.url{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
@media print{
@page{size:A4;margin:15mm}
body{background:#fff;padding:0}
.card{max-width:none;margin:0;padding:0;box-shadow:none}
footer,.no-print{display:none}
.languages{display:none}
.poster{break-inside:avoid}
.poster h1{font-size:30pt;margin-top:10mm}
.poster .amount{font-size:22pt}
.poster p{font-size:14pt}
.qr svg{width:120mm;max-width:100%}
}
`;
