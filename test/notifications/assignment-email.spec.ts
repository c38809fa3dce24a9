import { describe, expect, it } from 'vitest';
import { ASSIGNMENT_LINKS_LISTED, composeAssignmentEmail } from '../../src/features/notifications/views/assignment-email.js';

const submissions = (n: number, forms = 1) => Array.from({ length: n }, (_, i) => ({ id: `sub_${i}`, formId: `frm_${i % forms}`, formName: `Form ${i % forms}` }));

describe('the assignment email', () => {
  it('links each submission up to the limit, then the rest through the list of what is theirs', () => {
    const mail = composeAssignmentEmail({ by: 'ada@example.com', submissions: submissions(ASSIGNMENT_LINKS_LISTED + 2) }, 'https://f.example');
    expect(mail.subject).toBe(`Assigned to you: ${ASSIGNMENT_LINKS_LISTED + 2} submissions (Form 0)`);
    expect(mail.text.match(/\/dashboard\/submissions\/sub_\d+/g)).toHaveLength(ASSIGNMENT_LINKS_LISTED);
    expect(mail.text).toContain('… and 2 more: https://f.example/dashboard/forms/frm_0/submissions?assignee=me');
    expect(mail.html).toContain('<p>… and 2 more.</p>');
  });

  it('names no form in the subject when several are involved, and escapes what it shows', () => {
    const mail = composeAssignmentEmail({ by: '<b>x</b>@example.com', submissions: submissions(3, 2) }, 'https://f.example');
    expect(mail.subject).toBe('Assigned to you: 3 submissions');
    expect(mail.text).toContain('assigned you 3 submissions of 2 forms');
    expect(mail.text).toContain('Everything assigned to you: https://f.example/dashboard/forms\n');
    expect(mail.html).toContain('&lt;b&gt;x&lt;/b&gt;@example.com');
    expect(mail.html).not.toContain('<b>x</b>');
  });
});
