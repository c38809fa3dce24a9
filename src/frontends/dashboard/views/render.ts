import { isRole, type Role } from '../../../features/members/member.types.js';
import { roleMay, type Action } from '../../../features/members/permissions.js';
import { Eta } from 'eta';
import { UTC } from '../../../platform/lib/time-zone.js';
import { accountViews } from '../pages/account/account.views.js';
import { adminViews } from '../pages/admin/admin.views.js';
import { auditViews } from '../pages/audit/audit.views.js';
import { authViews } from '../pages/auth/auth.views.js';
import { confirmViews } from './confirm.views.js';
import { emailViews } from '../pages/email/email.views.js';
import { formViews } from '../pages/forms/forms.views.js';
import { viewHelpers } from './helpers.js';
import { hookViews } from '../pages/hooks/hooks.views.js';
import { integrationViews } from '../pages/integrations/integrations.views.js';
import { invitationViews } from '../pages/invitations/invitations.views.js';
import { keyViews } from '../pages/keys/keys.views.js';
import { layoutViews } from './layout.views.js';
import { memberViews } from '../pages/members/members.views.js';
import { settingsViews } from '../pages/forms/settings.views.js';
import { submissionInboxViews } from '../pages/inbox/submission-inbox.views.js';
import { submissionViews } from '../pages/submissions/submissions.views.js';
import { submitterViews } from '../pages/forms/submitter.views.js';

/**
 * Server-rendered pages. Eta escapes every `<%= %>` by default; `<%~ %>` (unescaped) is used only
 * for the layout's body, which is itself rendered escaped, and for the helpers' markup, which
 * escapes what it prints. Submission data is attacker-controlled.
 */
const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });

const templates: Record<string, string> = {
  ...layoutViews,
  ...authViews,
  ...formViews,
  ...settingsViews,
  ...emailViews,
  ...submitterViews,
  ...submissionViews,
  ...submissionInboxViews,
  ...hookViews,
  ...integrationViews,
  ...keyViews,
  ...accountViews,
  ...confirmViews,
  ...adminViews,
  ...auditViews,
  ...memberViews,
  ...invitationViews,
};

for (const [name, template] of Object.entries(templates)) eta.loadTemplate(`@${name}`, template);

export interface PageContext {
  title: string;
  account?: { id: string; email: string } | undefined;
  /** The signed-in person, their role in `account`, and their accounts for the switcher. */
  user?: { id: string; email: string; isAdmin?: boolean } | undefined;
  role?: string | undefined;
  memberships?: Array<{ accountId: string; accountEmail: string; teamName: string; role: string }> | undefined;
  csrf?: string;
  notice?: string;
  error?: string;
  /** A secret shown once (flash of the last POST). */
  secret?: string;
  secretLabel?: string;
  /** The viewer's time zone (checked; UTC without the page script's cookie). */
  timeZone?: string;
  /** The time-zone cookie as received, so the page script knows whether the server saw its zone. */
  zoneCookie?: string;
  /** A GET page without a one-time flash, which the page script may load again once it has told the server its zone. */
  reloadable?: boolean;
}

/** Renders a page into the layout. */
export function renderPage(view: string, page: PageContext, data: Record<string, unknown> = {}): string {
  // `it.can('forms.manage')`: a page shows only the controls the viewer's role may use.
  const can = (action: Action) => roleMay(isRole(page.role ?? '') ? (page.role as Role) : undefined, action);
  const full = { ...page, timeZone: page.timeZone ?? UTC, can };
  const body = eta.render(`@${view}`, { ...full, h: viewHelpers(full.timeZone), fieldErrors: {}, values: {}, ...data });
  return eta.render('@layout', { ...full, body });
}
