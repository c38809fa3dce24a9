import { describe, expect, it } from 'vitest';
import { renderTemplate, submissionVariables, SUBJECT_VALUE_MAX, templateProblem } from '../../src/platform/lib/template.js';

const submission = (payload: Record<string, unknown>) =>
  submissionVariables('Contact', { id: 'sub_1', createdAt: '2026-01-02T03:04:05.000Z', payload });

describe('templates', () => {
  it('replaces plain variables: fields (arrays joined), form.name, submission.id and createdAt; unknown names render empty', () => {
    const vars = submission({ name: 'Ada', tags: ['x', 'y', 3], n: 7, yes: true, nothing: null });
    const out = renderTemplate('Hi {{name}} [{{tags}}] {{n}} {{yes}} <{{nothing}}> <{{missing}}> {{form.name}} {{submission.id}} {{submission.createdAt}}', vars, 'text');
    expect(out).toBe('Hi Ada [x, y, 3] 7 true <> <> Contact sub_1 2026-01-02T03:04:05.000Z');
    expect(renderTemplate('{{ name }}', vars, 'text')).toBe('Ada');
  });

  it('refuses at save time anything but text and plain variables, and templates that do not parse', () => {
    for (const ok of ['', 'plain', 'Hello {{name}}', '{{form.name}} – {{submission.id}}', 'a } b { c']) expect(templateProblem(ok)).toBeUndefined();
    for (const bad of ['{{{name}}}', '{{&name}}', '{{#a}}x{{/a}}', '{{^a}}x{{/a}}', '{{>partial}}', '{{!comment}}', '{{=<% %>=}}', '{{name', '{{#a}}', '{{/a}}']) {
      expect(templateProblem(bad), bad).toBeDefined();
    }
    expect(templateProblem('{{name')).toMatch(/does not parse/);
  });

  it('never runs a value as a template: {{, }}, {{{x}}} and {{#a}} in values stay text', () => {
    const vars = submission({ a: '{{form.name}}', b: '{{{x}}} {{#a}}boom{{/a}} }}', c: '{{>p}}', x: 'SECRET' });
    expect(renderTemplate('{{a}}|{{b}}|{{c}}', vars, 'text')).toBe('{{form.name}}|{{{x}}} {{#a}}boom{{/a}} }}|{{>p}}');
  });

  it('lets no field override the built-in names, and never walks into objects or prototypes through dots', () => {
    // As a parsed JSON body holds them: __proto__ an own key, not the prototype.
    const vars = submission(JSON.parse('{"form.name":"spoofed","submission.id":"spoofed","__proto__":"p","constructor":"c","a.b":"dotted","a":"plain"}'));
    expect(renderTemplate('{{form.name}} {{submission.id}}', vars, 'text')).toBe('Contact sub_1');
    expect(renderTemplate('{{a.b}} {{a.length}} {{name.constructor}} {{toString}} {{hasOwnProperty}}', vars, 'text')).toBe('dotted    ');
    expect(renderTemplate('{{constructor}} {{__proto__}}', vars, 'text')).toBe('c p');
    expect(renderTemplate('{{form.name.length}} {{submission}}', vars, 'text')).toBe(' ');
  });

  it('keeps a subject to one line: CR/LF become spaces, each value cut to 100 characters', () => {
    const long = 'x'.repeat(500);
    const vars = submission({ evil: 'hi\r\nBcc: victim@example.org\nX-Injected: 1\r', long });
    const subject = renderTemplate('Re: {{evil}} {{long}}', vars, 'subject');
    expect(subject).not.toMatch(/[\r\n]/);
    expect(subject).toBe(`Re: hi Bcc: victim@example.org X-Injected: 1  ${'x'.repeat(SUBJECT_VALUE_MAX)}`);
    expect(renderTemplate('a\r\nb', vars, 'subject')).toBe('a b');
    // The body keeps line breaks and whole values.
    expect(renderTemplate('{{long}}', vars, 'text')).toBe(long);
  });
});
