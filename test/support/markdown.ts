// The project's Markdown documents as the doc tests read them: which pages there are, their fenced
// blocks, their links outside code, their headings' anchors and their tables.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './child.js';

/** The pages a reader follows: the front door, the contributor's pages and every page of docs/. */
export function documentPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', 'test/README.md', 'client/README.md', 'tools/stripe-standin/README.md', ...docs.sort()];
}

export function readPage(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8');
}

export interface FencedBlock {
  /** The info string's first word (`sh`, `ts`, `json`...), empty when none. */
  lang: string;
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Fenced blocks (``` or ~~~, indented ones inside list items included). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !lines[end]!.trim().startsWith(fence!)) body.push(lines[end++]!.slice(indent!.length));
    blocks.push({ lang: lang ?? '', text: body.join('\n'), line: index + 1 });
    index = end;
  }
  return blocks;
}

/** The lines of a page with those of fenced blocks blanked, so line numbers hold. */
function outsideFences(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker.startsWith(fence)) fence = undefined;
      return '';
    }
    if (marker) {
      fence = marker;
      return '';
    }
    return line;
  });
}

/** The text outside fenced blocks and inline code spans, with line breaks kept (so line numbers hold). */
export function prose(markdown: string): string {
  return outsideFences(markdown)
    .map((line) => line.replace(/`[^`]*`/g, ''))
    .join('\n');
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images outside code: `[text](target)` and `![alt](target)`. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  prose(markdown)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: match[1]!, line: index + 1 });
    });
  return found;
}

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of outsideFences(markdown)) {
    if (!/^#{1,6} /.test(line)) continue;
    const base = line
      .replace(/^#+ /, '')
      .trim()
      .toLowerCase()
      .replace(/<[^<>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The rows of the first table whose header row starts with `firstHeader`, as arrays of cells. */
export function tableRows(markdown: string, firstHeader: string): string[][] {
  const lines = markdown.split('\n').map((line) => line.trim());
  const start = lines.findIndex((line) => line.startsWith(`| ${firstHeader} |`));
  if (start < 0) throw new Error(`no table whose first column is "${firstHeader}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The text of each code span of a cell, in order. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}
