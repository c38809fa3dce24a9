import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Comments point inside the repository: a rule names the docs page that states it (docs/*.md),
// a figure names docs/performance.md or BENCHMARKS.md. A reader of the checkout has no numbered
// specification, no issue tracker and no diary of past benchmark runs, so a comment citing one
// of them tells that reader nothing.
const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What a comment must not cite, each with the words of a failure. The document's name is spelt
 * `c[o]ntract` here, so that a grep for the word finds it nowhere but in CHANGELOG.md.
 */
const OUTSIDE: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bc[o]ntract\s+sections?\b/i, 'a section of a document not in the repository'],
  [/\bc[o]ntract\s*§/i, 'a section of a document not in the repository'],
  [/\bCONTRACT\.md\b/i, 'a file not in the repository'],
  [/\bissues?\s+#?\d+/i, 'an issue number'],
  [/\bstop\s+\d+\b/i, 'a past benchmark run'],
];

const SCANNED = /\.(?:ts|js|mjs|cjs|sh)$/;
/** Cheap and looser than OUTSIDE (comment markers may sit between the words): only files it matches are parsed. */
const MAY_CITE = /\bc[o]ntract\b|\bissues?[\s*/#]+\d|\bstop[\s*/#]+\d/i;

interface Comment {
  /** 1-based line of the comment's first character. */
  line: number;
  text: string;
}

const lineAt = (text: string, pos: number): number => {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

const isJsDoc = (node: ts.Node) => node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode;

/** Every comment of a TypeScript or JavaScript file, from its parse: a `//` in a string or a template is not one. */
function scriptComments(path: string, text: string): Comment[] {
  const kind = path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const found = new Map<number, Comment>();
  // Every comment is in the trivia before some token, so visiting every token finds them all: the
  // trailing ranges are those on the previous token's line, the leading ones those after it.
  const visit = (node: ts.Node): void => {
    for (const range of [...(ts.getTrailingCommentRanges(text, node.pos) ?? []), ...(ts.getLeadingCommentRanges(text, node.pos) ?? [])]) {
      if (!found.has(range.pos)) found.set(range.pos, { line: lineAt(text, range.pos), text: text.slice(range.pos, range.end) });
    }
    for (const child of node.getChildren(source)) if (!isJsDoc(child)) visit(child);
  };
  visit(source);
  return [...found.values()];
}

/** A shell script's comments: consecutive comment lines are one comment, so wrapped words still meet. */
function shellComments(text: string): Comment[] {
  const comments: Comment[] = [];
  let open: Comment | undefined;
  text.split('\n').forEach((line, index) => {
    const hash = index === 0 && line.startsWith('#!') ? undefined : /(?:^|\s)(#.*)$/.exec(line);
    if (!hash) {
      open = undefined;
      return;
    }
    const whole = line.trimStart().startsWith('#');
    if (whole && open) open.text += `\n${hash[1]}`;
    else comments.push((open = { line: index + 1, text: hash[1]! }));
    if (!whole) open = undefined;
  });
  return comments;
}

/** Each `path:line` whose comment cites something outside the repository, with what it cites. */
function citationsOutside(path: string, text: string): string[] {
  if (!MAY_CITE.test(text)) return [];
  const comments = path.endsWith('.sh') ? shellComments(text) : scriptComments(path, text);
  const hits: string[] = [];
  for (const comment of comments) {
    // The comment's lines without their markers, joined by spaces: a citation wrapped over two
    // lines is found too, and reported at the line it starts on.
    const lines = comment.text.split('\n').map((l) => l.replace(/^\s*(?:\/\*\*?|\*(?!\/)|\/\/+|#+)?\s?/, '').replace(/\*\/\s*$/, ''));
    const starts: number[] = [];
    let joined = '';
    for (const l of lines) {
      starts.push(joined.length);
      joined += `${l} `;
    }
    for (const [pattern, what] of OUTSIDE) {
      const match = pattern.exec(joined);
      if (!match) continue;
      let offset = 0;
      while (offset + 1 < starts.length && starts[offset + 1]! <= match.index) offset++;
      hits.push(`${path}:${comment.line + offset}: "${match[0]}" cites ${what}`);
    }
  }
  return hits;
}

/** What a checkout has that is not the repository's own: installed packages, builds, data. */
const NOT_TRACKED = new Set(['node_modules', 'dist', 'data', 'coverage', 'test-results', '.git']);

/** The files below `dir` (relative to the root), without what NOT_TRACKED names. */
function walk(dir: string): string[] {
  return readdirSync(`${root}${dir}`, { withFileTypes: true }).flatMap((entry) => {
    if (NOT_TRACKED.has(entry.name)) return [];
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? walk(path) : [path];
  });
}

/** The tracked source files: git's list in a checkout, else the tree (a copy made to test on another Node has no .git). */
function trackedSourceFiles(): string[] {
  let listed: string[];
  try {
    listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] }).split('\0');
  } catch {
    listed = walk('');
  }
  return listed.filter((path) => SCANNED.test(path));
}

describe('comments', () => {
  it('cite no section of an outside document, issue or past run, in any tracked source file', () => {
    const files = trackedSourceFiles();
    expect(files.length).toBeGreaterThan(300);
    const hits = files.flatMap((path) => citationsOutside(path, readFileSync(`${root}${path}`, 'utf8')));
    expect(hits).toEqual([]);
  });

  it('are told from strings, and a citation is found however it is wrapped', () => {
    const doc = ['contr', 'act'].join('');
    const script = [
      '/**',
      ` * Retried five times (${doc}`,
      ' * section 8).',
      ' */',
      `const a = '${doc} section 8 in a string is no comment';`,
      '// Fixed in issue #12, see CONTRACT.md.',
      'const b = `${a} // stop 47 in a template`; // as measured at stop 47',
      'const c = /\\/\\/ issue 3/;',
    ].join('\n');
    expect(citationsOutside('src/sample.ts', script)).toEqual([
      `src/sample.ts:2: "${doc} section" cites a section of a document not in the repository`,
      'src/sample.ts:6: "CONTRACT.md" cites a file not in the repository',
      'src/sample.ts:6: "issue #12" cites an issue number',
      'src/sample.ts:7: "stop 47" cites a past benchmark run',
    ]);
    const shell = ['#!/usr/bin/env bash', `# The image (${doc}`, '# section 15).', "echo 'stop 3'", `run # see ${doc} §4`].join('\n');
    expect(citationsOutside('e2e/sample.sh', shell)).toEqual([
      `e2e/sample.sh:2: "${doc} section" cites a section of a document not in the repository`,
      `e2e/sample.sh:5: "${doc} §" cites a section of a document not in the repository`,
    ]);
  });
});
