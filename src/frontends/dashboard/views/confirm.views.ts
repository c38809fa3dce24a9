/** A page asking once more before an action that cannot be undone (hook delete, key revoke, erasure). */
export const confirmViews: Record<string, string> = {
  confirm: `<section class="card narrow">
<h1><%= it.heading %></h1>
<p id="confirm-question"><%= it.question %></p>
<form method="post" action="<%= it.action %>" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="confirm" value="1">
  <% Object.keys(it.hidden || {}).forEach(function (name) { %><input type="hidden" name="<%= name %>" value="<%= it.hidden[name] %>"><% }) %>
  <% if (it.confirmLabel) { %><button class="danger"><%= it.confirmLabel %></button><% } %>
  <a class="button" href="<%= it.back %>">Cancel</a>
</form>
</section>`,
};

/** What the confirm page shows. */
export interface ConfirmModel {
  heading: string;
  question: string;
  action: string;
  /** Absent: nothing to confirm (the page only explains, with Cancel). */
  confirmLabel?: string;
  back: string;
  hidden?: Record<string, string>;
}
