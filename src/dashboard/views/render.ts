import { Eta } from 'eta';
import { accountViews } from './account.views.js';
import { adminViews } from './admin.views.js';
import { authViews } from './auth.views.js';
import { confirmViews } from './confirm.views.js';
import { emailViews } from './email.views.js';
import { formViews } from './forms.views.js';
import { viewHelpers } from './helpers.js';
import { hookViews } from './hooks.views.js';
import { integrationViews } from './integrations.views.js';
import { keyViews } from './keys.views.js';
import { layoutViews } from './layout.views.js';
import { settingsViews } from './settings.views.js';
import { submissionViews } from './submissions.views.js';
import { submitterViews } from './submitter.views.js';

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
  ...hookViews,
  ...integrationViews,
  ...keyViews,
  ...accountViews,
  ...confirmViews,
  ...adminViews,
};

for (const [name, template] of Object.entries(templates)) eta.loadTemplate(`@${name}`, template);

export interface PageContext {
  title: string;
  account?: { id: string; email: string; isAdmin?: boolean } | undefined;
  csrf?: string;
  notice?: string;
  error?: string;
  /** A secret shown once (flash of the last POST). */
  secret?: string;
  secretLabel?: string;
}

/** Renders a page into the layout. */
export function renderPage(view: string, page: PageContext, data: Record<string, unknown> = {}): string {
  const body = eta.render(`@${view}`, { ...page, h: viewHelpers, fieldErrors: {}, values: {}, ...data });
  return eta.render('@layout', { ...page, body });
}
