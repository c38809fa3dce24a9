import type { ConfigPlan, FormPlan, IntegrationChange } from './config-plan.js';

/** A plan as printed: what it changes, not what is written (which holds the secrets' values). */
export interface PlanView {
  changes: number;
  forms: Array<Omit<FormPlan, 'write' | 'etag' | 'integrations'> & { integrations: Array<Omit<IntegrationChange, 'input' | 'changes' | 'etag'>> }>;
}

export function planView(plan: ConfigPlan): PlanView {
  return {
    changes: plan.changes,
    forms: plan.forms.map(({ write: _write, etag: _etag, integrations, ...form }) => ({ ...form, integrations: integrations.map(({ input: _input, changes: _changes, etag: _e, ...change }) => change) })),
  };
}

const show = (value: unknown) => (value === undefined ? '(not set)' : JSON.stringify(value));

const secretLine = (s: { name: string; change: string }) =>
  s.change === 'not compared' ? `    ${s.name}: secret set, not compared (the API never shows one; --write-secrets writes it)` : `    ${s.name}: secret ${s.change}`;

const SIGNS: Record<FormPlan['action'], string> = { create: '+', update: '~', delete: '-', unchanged: ' ', untouched: ' ' };

function formLines(form: PlanView['forms'][number]): string[] {
  const title = `${SIGNS[form.action]} form ${form.key}${form.id && form.id !== form.key ? ` (${form.id})` : ''} "${form.name}"`;
  switch (form.action) {
    case 'unchanged':
      return [`${title}: no change`, ...form.secrets.map(secretLine)];
    case 'untouched':
      return [`${title}: not in the file, left as it is (--prune would delete it)`];
    case 'delete':
      return [`${title}: delete, with its submissions (--prune)`];
    default:
      break;
  }
  const lines = [`${title}: ${form.action}`];
  for (const s of form.settings) lines.push(form.action === 'create' ? `    ${s.name}: ${show(s.to)}` : `    ${s.name}: ${show(s.from)} → ${show(s.to)}`);
  lines.push(...form.secrets.map(secretLine));
  if (form.recipients) {
    for (const a of form.recipients.add) lines.push(`    recipients: + ${a}`);
    for (const a of form.recipients.remove) lines.push(`    recipients: - ${a}`);
  }
  for (const i of form.integrations) {
    const sign = i.action === 'add' ? '+' : i.action === 'remove' ? '-' : '~';
    lines.push(`    integrations: ${sign} ${i.kind} "${i.name}"${i.reason ? `: ${i.reason}` : ''}`);
  }
  for (const url of form.hooks.add) lines.push(`    hooks: + ${url}`);
  for (const hook of form.hooks.remove) lines.push(`    hooks: - ${hook.targetUrl}`);
  return lines;
}

/** The plan as a diff a person reads: one block per form, then the totals. */
export function formatPlan(plan: PlanView): string {
  const count = (action: FormPlan['action']) => plan.forms.filter((f) => f.action === action).length;
  const lines = plan.forms.flatMap(formLines);
  const untouched = count('untouched');
  lines.push(
    '',
    plan.changes === 0
      ? `No changes.${untouched > 0 ? ` ${untouched} form(s) not in the file left as they are.` : ''}`
      : `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete, ${count('unchanged')} unchanged, ${untouched} not in the file left as they are.`,
  );
  return lines.join('\n');
}
