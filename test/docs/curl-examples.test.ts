// Every curl example of the documents runs as written against the service. The `sh` blocks of a page
// that call curl (and those that only set variables) run in order in one bash, a command at a time, as a
// reader runs them in one terminal, with `API`, `KEY` and http://localhost:3000 pointing at this test's
// service. A curl must answer below 400 unless the comment at the end of its line starts with the status
// it shows (`# 402`), and a command whose comment shows JSON (`# {"status":"Paid",...}`) must print it. A line `echo "$URL"  # open it in a browser and pay with <card>` (or `save <card>`) is done
// here, on the hosted page, as a payer would. Placeholders the reader fills in (`<your password>`,
// `<the code your app shows>`) are filled in from this test's member; any other `<...>` in a block
// that runs is a mistake. CONTRIBUTING.md ("Documents held true") says how to write an example.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '../../server/usecases/members/accounts.js';
import { documentPages, fencedBlocks, readPage } from '../support/markdown.js';
import { PASSWORD, totpCode } from '../support/members.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { useService } from '../support/service.js';

// Deliveries would only reach nothing at the examples' merchant host: the events they list are there without them.
const t = useService({ outbox: { worker: false } });
const OWNER = 'owner@example.com';

const MARK = '@@';
const PAYER_STEP = /^\s*echo\s+"?\$\{?(\w+)\}?"?\s+#\s*open it in a browser and (pay|save)\b(.*)$/;
const CARD = /\b(\d{4} \d{4} \d{4} \d{4}|\d{4} \d{6} \d{5})\b/;
const PLACEHOLDER = /<[a-z][a-z ]*>/g;
const STARTS_SERVICE = /\bnpm (?:ci|start|run (?:dev|stripe-standin))\b|\bnode dist\//;

interface Step {
  /** One command as bash reads it (lines ending in a backslash joined). */
  script: string;
  /** The status each curl of the command must answer, in order: a number, or undefined for any below 400. */
  expected: (number | undefined)[];
  /** The JSON the page shows the command printing (a comment on its line, or on the line after it). */
  shows?: string;
  /** Where the command is, for messages. */
  where: string;
  payer?: { variable: string; action: 'pay' | 'save'; rest: string };
}

/** A line without its comment (` # ...` to the end). */
const code = (line: string) => line.replace(/(^|\s)#\s.*$/, '');
const commentOf = (line: string) => /(?:^|\s)#\s(.*)$/.exec(line)?.[1]?.trim();
const CURL_CALL = /(?:^|[\s(;|&])curl\s/g;

function expectations(line: string): (number | undefined)[] {
  const status = /^(\d{3})\b/.exec(commentOf(line) ?? '')?.[1];
  return [...code(line).matchAll(CURL_CALL)].map(() => (status ? Number(status) : undefined));
}

/** What a comment shows as JSON (`{...}` or `[...]`, a trailing `,...` meaning "and more"), if it shows any. */
function shownJson(comment: string | undefined): string | undefined {
  return comment && /^[[{].*[\]}]$/.test(comment) ? comment : undefined;
}

/** A page's commands that run: those of its blocks that call curl or only set variables. */
function stepsOf(page: string): Step[] {
  const steps: Step[] = [];
  for (const block of fencedBlocks(readPage(page))) {
    if (!['sh', 'bash', 'shell'].includes(block.lang)) continue;
    const meaningful = block.text.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));
    const callsCurl = /(?:^|[\s(;|&])curl\s/m.test(block.text);
    const setsOnly = meaningful.length > 0 && meaningful.every((line) => /^\s*[A-Z_][A-Z0-9_]*=/.test(line));
    if (!callsCurl && !setsOnly) continue;
    let line = block.line + 1;
    for (const command of block.text.split(/(?<!\\)\n/)) {
      const where = `${page}:${line}`;
      line += command.split('\n').length;
      const joined = command.replace(/\\\n/g, ' ');
      if (!joined.trim()) continue;
      if (joined.trim().startsWith('#')) {
        // A comment of its own that shows JSON shows what the command before it printed.
        const shows = shownJson(joined.trim().slice(1).trim());
        if (shows && steps.length > 0 && !steps.at(-1)!.shows) steps.at(-1)!.shows = shows;
        continue;
      }
      const payer = PAYER_STEP.exec(joined);
      steps.push({
        script: joined,
        expected: expectations(joined),
        where,
        ...(shownJson(commentOf(joined)) && { shows: shownJson(commentOf(joined)) }),
        ...(payer && { payer: { variable: payer[1]!, action: payer[2] as 'pay' | 'save', rest: payer[3]! } }),
      });
    }
  }
  return steps;
}

/** One bash for a page: scripts run in it one after another, sharing their variables. */
class Terminal {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private count = 0;
  /** Called whenever bash writes or exits. */
  private wake = () => {};

  constructor(private readonly dir: string) {
    this.child = spawn('bash', ['--noprofile', '--norc'], {
      cwd: dir,
      // HOME and CURL_HOME: no .curlrc of the machine's changes what curl does.
      env: { PATH: process.env.PATH ?? '', HOME: dir, CURL_HOME: dir, LANG: 'C.UTF-8' },
    });
    this.child.stdout.on('data', (chunk: Buffer) => ((this.stdout += chunk.toString()), this.wake()));
    this.child.stderr.on('data', (chunk: Buffer) => ((this.stderr += chunk.toString()), this.wake()));
    this.child.once('exit', () => this.wake());
  }

  /** Runs `script` to its end; answers what it wrote to stdout and to stderr. */
  async run(script: string): Promise<{ stdout: string; stderr: string }> {
    const file = join(this.dir, `step-${++this.count}.sh`);
    writeFileSync(file, `${script}\n`);
    const end = `${MARK}end ${this.count}`;
    const [outFrom, errFrom] = [this.stdout.length, this.stderr.length];
    const done = () => this.stdout.includes(end, outFrom) && this.stderr.includes(end, errFrom);
    const finished = new Promise<void>((resolve, reject) => {
      // eslint-disable-next-line no-restricted-syntax -- a deadline for the script, cleared when it ends
      const timer = setTimeout(() => reject(new Error(`still running after 30 s: ${script}`)), 30_000);
      this.wake = () => {
        if (done()) resolve();
        else if (this.child.exitCode !== null) reject(new Error(`bash exited (${this.child.exitCode}) running ${script}\n${this.stderr.slice(errFrom)}`));
        else return;
        clearTimeout(timer);
      };
    });
    this.child.stdin.write(`source ${JSON.stringify(file)}; printf '\\n%s\\n' '${end}'; printf '%s\\n' '${end}' >&2\n`);
    await finished;
    return { stdout: this.stdout.slice(outFrom, this.stdout.indexOf(end, outFrom)), stderr: this.stderr.slice(errFrom, this.stderr.indexOf(end, errFrom)) };
  }

  async value(variable: string): Promise<string> {
    return (await this.run(`printf '%s' "$${variable}"`)).stdout.trim();
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-docs-'));
  // The member the sign-in walkthrough signs in as, with the password it types.
  const made = await createMember(t.service.context, { businessId: t.a.business.id, email: OWNER, role: 'owner', password: PASSWORD });
  expect(made.kind).toBe('created');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pages = documentPages().filter((page) => stepsOf(page).length > 0);

describe('the curl examples of the documents', () => {
  it('are found: a page that holds some is run here, with the programs they use', () => {
    const tools = spawnSync('bash', ['-c', 'command -v curl && command -v jq'], { encoding: 'utf8' });
    expect(tools.status, `the examples need bash, curl and jq on the PATH (Debian: apt-get install curl jq): ${tools.stdout}`).toBe(0);
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/integrating.md', 'docs/security.md', 'docs/operating.md']));
  });

  it.each(pages)(
    '%s: every example answers what it says',
    async (page) => {
      const terminal = new Terminal(mkdtempSync(join(dir, 'page-')));
      let curls = 0;
      try {
        // The reader's definitions, pointed at this service; curl reports each answer's status on stderr.
        await terminal.run(
          [`curl() { command curl "$@" --write-out '%{stderr}${MARK}curl %{http_code}\\n'; }`, `API=${t.apiUrl}`, `KEY=${t.a.key}`, `export API KEY`].join(
            '\n',
          ),
        );
        for (const step of stepsOf(page)) {
          let script = step.script
            .split('\n')
            .map((line) => (/^\s*API=/.test(line) ? `API=${t.apiUrl}` : /^\s*KEY=/.test(line) ? `KEY=${t.a.key}` : line))
            .join('\n')
            .replaceAll('http://localhost:3000', t.url)
            .replaceAll('<your password>', PASSWORD);
          if (script.includes('<the code your app shows>'))
            script = script.replaceAll('<the code your app shows>', totpCode(await terminal.value('TOTP_SECRET')));
          expect(script.match(PLACEHOLDER) ?? [], `${step.where}: placeholders nobody fills in`).toEqual([]);

          expect(code(step.script), `${step.where}: a block that runs curl must not start the service (give that a block of its own)`).not.toMatch(
            STARTS_SERVICE,
          );
          const { stdout, stderr } = await terminal.run(script);
          const lines = stderr.split('\n').filter((line) => line.trim());
          const statuses = lines.filter((line) => line.startsWith(`${MARK}curl `)).map((line) => Number(line.slice(`${MARK}curl `.length)));
          const other = lines.filter((line) => !line.startsWith(MARK));
          const shown = `\n--- ${step.where}\n${step.script}\n--- stdout\n${stdout}\n--- stderr\n${other.join('\n')}`;
          expect(other, `nothing but answers on stderr${shown}`).toEqual([]);
          expect(statuses.length, `one answer per curl${shown}`).toBe(step.expected.length);
          step.expected.forEach((expected, index) => {
            const status = statuses[index]!;
            if (expected === undefined) expect(status > 0 && status < 400, `curl ${index + 1} answered ${status}${shown}`).toBe(true);
            else expect(status, `curl ${index + 1}${shown}`).toBe(expected);
          });
          if (step.shows) {
            // What the page shows is there in what the command printed; `,...` stands for the fields not shown.
            const printed = JSON.parse(stdout.trim()) as unknown;
            expect(printed, `what the page shows${shown}`).toMatchObject(JSON.parse(step.shows.replace(/,\.\.\.(?=[\]}]$)/, '')) as object);
          }
          curls += statuses.length;

          if (step.payer) {
            const url = await terminal.value(step.payer.variable);
            const card = CARD.exec(step.payer.rest)?.[1];
            expect(card, `${step.where}: the card to ${step.payer.action} with`).toBeDefined();
            const fields: Record<string, string> = { name: 'Aisyah Rahman', card_number: card!, expiry: GOOD_CARD.expiry, cvc: GOOD_CARD.cvc };
            if (url.includes('/open-link/'))
              Object.assign(fields, { email: 'payer@example.com', amount: /^\s*(\d+\.\d{2})\b/.exec(step.payer.rest)?.[1] ?? '10.00' });
            const answer = await submitPage(t.url, url, fields);
            expect(answer.status, `${step.where}: ${step.payer.action} on ${url}: ${answer.html.slice(0, 300)}`).toBe(303);
          }
        }
      } finally {
        terminal.close();
      }
      expect(curls).toBeGreaterThan(0);
    },
    180_000,
  );
});
