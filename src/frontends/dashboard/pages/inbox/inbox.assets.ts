/**
 * The team inbox's own styles and script, served after the dashboard's (/dashboard/assets): the
 * list reads one line per submission, and the submission's page keeps its content first with
 * the triage beside it on wide screens.
 */
export const inboxCss = `
/* The list: one line per submission on a wide screen; dates never wrap. */
table.inbox-list td{vertical-align:middle}
table.inbox-list td.received,table.inbox-list td.country,table.inbox-list td.state,table.inbox-list td.assignee{white-space:nowrap}
/* Who sent it on the first line, the other fields on the second, each cut with an ellipsis. */
table.inbox-list td.preview .sender-line{color:#1c2230;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
table.inbox-list td.preview .detail{font-weight:400;font-size:.85rem}
table.inbox-list td.preview .snippet{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:.9rem}
table.inbox-list td.tags{white-space:nowrap}
table.inbox-list td.select{width:2rem}
/* A box and its words on one line ("Select all on this page"), not the box above them. */
.bulk-bar label{display:inline-flex;align-items:center;gap:.4rem;margin:0;font-weight:400}
.row label input[type=checkbox],.bulk-bar input[type=checkbox]{width:auto;flex:none;margin:0}
.bulk-bar label.assign-to{display:inline-flex;gap:.4rem}.bulk-bar label.assign-to select{width:auto;margin:0}
/* With JavaScript the actions appear once a row is ticked; without it they are always there. */
.bulk-hint{display:none}
form.js-select:not(.has-selection) .bulk-actions{display:none}
form.js-select:not(.has-selection) .bulk-hint{display:inline}
/* A submission: its content first, the triage beside it where there is room, below it on a phone. */
.submission-layout{display:grid;grid-template-columns:minmax(0,1fr);gap:1.25rem;align-items:start}
.submission-triage{min-width:0}
.submission-triage .inbox-panel{margin-top:0}
.submission-triage select,.submission-triage textarea{max-width:100%}
.notes-by{font-size:.85rem;margin:.25rem 0 .5rem}
@media (min-width:1000px){.submission-layout{grid-template-columns:minmax(0,1fr) minmax(17rem,24rem)}
.submission-triage{border-left:1px solid #eceef2;padding-left:1.25rem;position:sticky;top:1rem}}
@media (max-width:640px){table.inbox-list td.preview .sender-line,table.inbox-list td.preview .snippet,table.inbox-list td.tags{white-space:normal;overflow-wrap:anywhere}
table.inbox-list td.received,table.inbox-list td.state,table.inbox-list td.assignee{white-space:normal}}
@media (prefers-color-scheme:dark){.submission-triage{border-left-color:#2c3342}table.inbox-list td.preview .sender-line{color:#e3e7ef}}
`;

export const inboxJs = `
// The list's bulk actions show once something is ticked (a row, or "All N matching"); the page
// works without this script, with the actions always shown.
(function () {
  var form = document.getElementById('bulk');
  if (!form || form.tagName !== 'FORM') return;
  var update = function () {
    var ticked = form.querySelector('input[name=ids]:checked, input[name=scope]:checked');
    form.classList.toggle('has-selection', ticked !== null);
  };
  form.classList.add('js-select');
  form.addEventListener('change', update);
  update();
  // Restored from the back-forward cache with boxes still ticked.
  window.addEventListener('pageshow', update);
})();
`;
