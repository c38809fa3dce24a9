import { describeFileValue, isFileValue } from './file-links.js';
import Mustache from 'mustache';

/**
 * Owner-written templates (notification subject, confirmation subject and body; docs/email.md,
 * Templates). Mustache only parses: a template may hold text and plain `{{name}}` variables,
 * nothing else (no sections, partials, triple braces, comments or delimiter changes), and it is
 * rendered here from the parsed tokens against a flat map. So a name never walks into an object
 * (`{{a.b}}` is the key "a.b", not a.b), a value is never parsed again (a visitor's `{{x}}` stays
 * text), and nothing can call a function.
 */

export type TemplateVariables = ReadonlyMap<string, string>;

type Token = [type: string, value: string, ...rest: unknown[]];

/** Longest value a subject takes from one variable. */
export const SUBJECT_VALUE_MAX = 100;

function parse(source: string): Token[] {
  return Mustache.parse(source) as unknown as Token[];
}

/** Why a template cannot be used, or undefined when it can. */
export function templateProblem(source: string): string | undefined {
  let tokens: Token[];
  try {
    tokens = parse(source);
  } catch (error) {
    return `does not parse: ${(error as Error).message}`;
  }
  const other = tokens.find(([type]) => type !== 'text' && type !== 'name');
  return other ? 'may use only plain {{name}} variables (no sections, partials, triple braces or comments)' : undefined;
}

/** Line breaks become spaces: a header value keeps to one line. */
export const oneLine = (value: string): string => value.replace(/\r\n|[\r\n]/g, ' ');

/**
 * The template with each variable replaced; an unknown name renders empty. `subject` keeps the
 * result to one line and cuts each value to SUBJECT_VALUE_MAX characters. The text is plain:
 * callers escape it for HTML.
 */
export function renderTemplate(source: string, variables: TemplateVariables, mode: 'text' | 'subject'): string {
  let tokens: Token[];
  try {
    tokens = parse(source);
  } catch {
    // Saved templates were checked; one that fails now is shown as written rather than lost.
    return mode === 'subject' ? oneLine(source) : source;
  }
  let out = '';
  for (const [type, value] of tokens) {
    if (type === 'text') out += value;
    else if (type === 'name') {
      const text = variables.get(value) ?? '';
      out += mode === 'subject' ? oneLine(text).slice(0, SUBJECT_VALUE_MAX) : text;
    }
  }
  return mode === 'subject' ? oneLine(out) : out;
}

/** A submission value as text: arrays joined with ", ", null empty. */
export function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  if (value === null || value === undefined) return '';
  if (isFileValue(value)) return describeFileValue(value);
  return String(value);
}

/**
 * The variables of one submission: its fields, then `form.name`, `submission.id` and
 * `submission.createdAt`, which a field of the same name cannot override.
 */
export function submissionVariables(
  formName: string,
  submission: { id: string; createdAt: string; payload: Record<string, unknown> },
): TemplateVariables {
  const variables = new Map<string, string>();
  for (const [name, value] of Object.entries(submission.payload)) variables.set(name, valueText(value));
  variables.set('form.name', formName);
  variables.set('submission.id', submission.id);
  variables.set('submission.createdAt', submission.createdAt);
  return variables;
}
