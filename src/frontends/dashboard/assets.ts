import { TIME_ZONE_COOKIE } from './page.js';

/** Served from /dashboard/assets so the pages need no CDN and no inline script or style. */
export const appCss = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#1c2230}
a{color:#2453d4;text-decoration:none}a:hover{text-decoration:underline}
.top{display:flex;align-items:center;gap:1.5rem;padding:.8rem 1.5rem;background:#151b2c;color:#fff;flex-wrap:wrap}
.top a{color:#dfe6ff}.brand{font-weight:700;font-size:1.1rem;color:#fff!important}
.top nav{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
main{max-width:1080px;margin:1.5rem auto;padding:0 1rem}
.card{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(16,24,40,.08);padding:1.25rem 1.5rem;margin-bottom:1.25rem;overflow-x:auto}
.narrow{max-width:440px;margin-left:auto;margin-right:auto}
h1{font-size:1.35rem;margin:0 0 .75rem}h2{font-size:1.1rem;margin:0 0 .75rem}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid #eceef2;vertical-align:top}
th{font-weight:600;color:#4a5266;font-size:.85rem}
.fields th{width:28%;white-space:nowrap}.fields td{white-space:pre-wrap;overflow-wrap:anywhere}
.preview{color:#4a5266;max-width:520px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
label{display:block;margin:.5rem 0;font-weight:500}
textarea,select{display:block;width:100%;padding:.5rem .6rem;border:1px solid #cfd4dc;border-radius:6px;font:inherit;margin-top:.25rem}
input:not([type=checkbox]){display:block;width:100%;padding:.5rem .6rem;border:1px solid #cfd4dc;border-radius:6px;font:inherit;margin-top:.25rem}
.row input{width:auto;flex:1;margin:0}.row label input{width:100%;margin-top:.25rem}.row label{margin:0}
textarea,select{display:block;width:100%;padding:.5rem .6rem;border:1px solid #cfd4dc;border-radius:6px;font:inherit;margin-top:.25rem}
.attempt{font-size:.85rem;white-space:normal;overflow-wrap:anywhere}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
.stack button{margin-top:.75rem}
.row{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}.grow{flex:1}
button,.button{display:inline-block;font:inherit;padding:.45rem .9rem;border-radius:6px;border:1px solid #cfd4dc;background:#fff;color:#1c2230;cursor:pointer}
.primary{background:#2453d4;border-color:#2453d4;color:#fff}.danger{color:#b42318;border-color:#f1b5ae}.small{padding:.2rem .6rem;font-size:.85rem}
button.link{background:none;border:0;color:#dfe6ff;padding:0}
.inline{display:inline}
.badge{padding:.1rem .5rem;border-radius:99px;font-size:.8rem}.badge.ok{background:#e3f6ea;color:#146c2e}.badge.off{background:#f2f3f5;color:#5b6275}
.tabs{display:flex;gap:.25rem}.tabs a{padding:.35rem .75rem;border-radius:6px;color:#4a5266}.tabs a.active{background:#e8eefc;color:#2453d4}
.notice{background:#e3f6ea;color:#146c2e;padding:.6rem .9rem;border-radius:8px}
.error{background:#fdecea;color:#b42318;padding:.6rem .9rem;border-radius:8px}
.muted{color:#4f566a}.crumbs{color:#4f566a}
p a,.muted a,td a{text-decoration:underline}
pre{background:#f3f4f7;padding:.9rem;border-radius:8px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.secret{border:1px solid #f5d28b;background:#fff8e6;border-radius:8px;padding:.75rem 1rem;margin-bottom:1rem}
.hook{border-top:1px solid #eceef2;padding:.75rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88em}
.who{color:#aeb8d6;font-size:.9rem}.who strong{color:#fff;font-weight:500;overflow-wrap:anywhere}
.switcher{display:inline-flex;gap:.35rem;align-items:center;color:#fff;font-size:.9rem}.switcher select{display:inline-block;width:auto;max-width:14rem;margin:0;padding:.2rem .4rem}.switcher label{margin:0}
.foot{max-width:1080px;margin:0 auto 2rem;padding:0 1rem;font-size:.85rem}
.field-error{color:#b42318;margin:.1rem 0 .5rem;font-size:.9rem}.field-error::before{content:"⚠ "}
select{display:block;width:100%;padding:.45rem .6rem;border:1px solid #cfd4dc;border-radius:6px;font:inherit;margin-top:.25rem;background:#fff}
.search{display:flex;gap:.5rem;align-items:flex-end;flex-wrap:wrap;margin:.75rem 0}.small-print{font-size:.85rem;margin:-.25rem 0 .5rem}.search label{margin:0}.search .grow{min-width:14rem}
.chart-box{margin:.75rem 0}.chart{width:100%;height:140px;display:block}.chart-axis{display:flex;justify-content:space-between;font-size:.8rem}.legend.inbox{color:#2453d4}.legend.spam{color:#8a5300}
.bulk-bar{margin:.5rem 0}.pager{margin-top:.75rem}.num{text-align:right;font-variant-numeric:tabular-nums}
fieldset{border:1px solid #eceef2;border-radius:8px;margin:.75rem 0;padding:.4rem 1rem .6rem}legend{font-weight:600;color:#4a5266;padding:0 .3rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.table-wrap{overflow-x:auto;max-width:100%}
.submit-url,.wrap{overflow-wrap:anywhere}
.copy-status{margin-left:.5rem;font-size:.85rem;color:#4f566a}
abbr[title]{text-decoration:underline dotted;cursor:help}
tr.unread td{font-weight:600}.tags{gap:.4rem}[hidden]{display:none!important}
@media (max-width:640px){.top{gap:.75rem;padding:.7rem 1rem}.fields th{width:auto}
main{margin:1rem auto;padding:0 .5rem}.card{padding:1rem}
table.stacked thead{display:none}table.stacked tr{display:block;border-bottom:1px solid #eceef2;padding:.4rem 0}
table.stacked td{display:block;position:relative;border:0;padding:.2rem .2rem .2rem 8.25rem;min-height:1.9em;overflow-wrap:anywhere}
table.stacked td::before{content:attr(data-label);position:absolute;left:.2rem;top:.3rem;width:7.5rem;font-weight:600;color:#4a5266;font-size:.85rem}
.preview{max-width:none;white-space:normal;overflow-wrap:anywhere}
.fields th,.fields td{display:block;width:auto}
.search .grow{min-width:100%}pre{font-size:.8rem}}
/* Added rules only below: later rules win, so pages of other sections keep the ones above. */
.badge{white-space:nowrap}
.page-title{margin:.25rem 0 .5rem}
.jump{display:flex;flex-wrap:wrap;gap:.25rem .9rem;margin:0 0 1rem;font-size:.9rem}.jump a{text-decoration:underline}
details.variant{margin-top:.75rem}details.variant>summary{cursor:pointer;font-weight:600;padding:.3rem 0}
details.earlier{font-size:.85em;margin-top:.2rem}details.earlier>summary{cursor:pointer}details.earlier ol{margin:.2rem 0 0;padding-left:1.2rem}
.settings-groups{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,26rem),1fr));gap:0 1.25rem;align-items:start}
.save-bar{margin:0 0 1.25rem;padding:.6rem .9rem;background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(16,24,40,.08)}
.save-bar button{margin-right:.5rem}
/* Only the chosen bot check's fields, as the select changes: CSS alone, so it works without JavaScript. */
@supports selector(:has(*)){
.settings-form .vendor{display:none}
.settings-form:has(select[name=botCheck] option[value=none]:checked) .vendor[data-vendor=none],
.settings-form:has(select[name=botCheck] option[value=altcha]:checked) .vendor[data-vendor=altcha],
.settings-form:has(select[name=botCheck] option[value=turnstile]:checked) .vendor[data-vendor=turnstile],
.settings-form:has(select[name=botCheck] option[value=hcaptcha]:checked) .vendor[data-vendor=hcaptcha],
.settings-form:has(select[name=botCheck] option[value=recaptcha]:checked) .vendor[data-vendor=recaptcha]{display:block}}
/* Wide screens: the content uses the width; a list's Fields column takes what the others leave. */
main,.foot{max-width:min(1800px,100%)}
@media (min-width:641px){td.preview{max-width:0;width:100%}}
/* Form rows: a button lines up with the field beside it (the label's text sits above the field),
   is as tall as it (a select ignores line-height, hence one height for all), and a growing field takes its own line on a phone rather than shrinking to nothing. */
form.row{align-items:flex-end}
form.row input:not([type=checkbox]):not([type=radio]),form.row select,form.row>button:not(.small),form.row>.button{height:2.6rem}
form.row>.button{display:inline-flex;align-items:center}
/* A small button centres on the field: half of the height it lacks (its line, padding and border) below it. */
form.row>button.small{margin-bottom:calc((2.6rem - 1.275rem - .4rem - 2px)/2)}
.row .grow{flex:1 1 12rem}
/* The bulk bar's tag field is a small control among small buttons, its label beside it. */
.bulk-bar label:not(:has(>input[type=checkbox])){display:flex;align-items:center;gap:.4rem}
.bulk-bar label input:not([type=checkbox]){width:10rem;margin:0;padding:.2rem .5rem;font-size:.85rem}
/* A box and its words on one line, whatever rule above sized the label's field. */
label input[type=checkbox],label input[type=radio]{display:inline-block;width:auto;flex:none;margin:0;vertical-align:middle}
label:has(>input[type=checkbox]),label:has(>input[type=radio]){display:flex;gap:.5rem;align-items:baseline;font-weight:400}
/* The recipients sit in a narrow card: each is a line that wraps, its button under it when it must. */
table.recipients,table.recipients tbody{display:block}
table.recipients thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.recipients tr{display:flex;flex-wrap:wrap;align-items:center;gap:.35rem .75rem;padding:.5rem 0;border-bottom:1px solid #eceef2}
table.recipients td{display:block;border:0;padding:0;min-width:0;overflow-wrap:anywhere}
table.recipients td:empty{display:none}
table.recipients button{white-space:normal;max-width:100%}
/* A stacked row's label floats in the cell's padding: a label on two lines makes the cell taller
   instead of running into the next one. */
@media (max-width:640px){
table.stacked td{display:flow-root}
table.stacked td::before{position:static;float:left;width:7.5rem;margin:.1rem 0 0 -8.05rem;text-align:left}}
/* Dark mode, following the system setting. */
:root{color-scheme:light dark}
@media (prefers-color-scheme:dark){
body{background:#10131a;color:#e3e7ef}
a{color:#9db8ff}
.card,.save-bar{background:#1a1f2a;box-shadow:0 1px 3px rgba(0,0,0,.5)}
th,td{border-bottom-color:#2c3342}th,legend{color:#b8c0d0}
.muted,.crumbs,.copy-status{color:#aab2c3}
input:not([type=checkbox]),textarea,select{background:#10131a;color:#e3e7ef;border-color:#3a4356}
button,.button{background:#232a38;color:#e3e7ef;border-color:#3a4356}
.primary{background:#3a63d8;border-color:#3a63d8;color:#fff}
.danger{color:#ff9b90;border-color:#7a3a34}
.badge.ok{background:#15381f;color:#8fe0a8}.badge.off{background:#2a303c;color:#c9cfdb}
.notice{background:#15381f;color:#9fe6b5}.error{background:#431a16;color:#ffb4aa}
.field-error{color:#ff9b90}
pre{background:#10131a;color:#e3e7ef}
.secret{background:#3a2e0d;border-color:#7a6120;color:#f5e6bf}
.hook,table.stacked tr,table.recipients tr,fieldset{border-color:#2c3342}
.tabs a{color:#b8c0d0}.tabs a.active{background:#22315c;color:#c4d4ff}
.legend.inbox{color:#8fb0ff}.legend.spam{color:#f0b450}
.chart line{stroke:#3a4356}
.preview,table.stacked td::before{color:#b8c0d0}}
`;

export const appJs = `
// Pages show times, date filters and chart days in the zone the server read from the fg_tz
// cookie (UTC without it). Tell it the browser's zone; a GET page with times, drawn before the
// server knew the zone, is loaded once more. The server echoes the cookie it got in
// data-tz-cookie, so a zone it refused (or calls by another name) never loops.
(function () {
  var zone = '';
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { zone = ''; }
  if (!zone) return;
  var stored = function () { var m = /(?:^|; )${TIME_ZONE_COOKIE}=([^;]*)/.exec(document.cookie); return m ? decodeURIComponent(m[1]) : ''; };
  if (stored() !== zone) document.cookie = '${TIME_ZONE_COOKIE}=' + encodeURIComponent(zone) + '; path=/dashboard; max-age=31536000; samesite=lax';
  var root = document.documentElement;
  var zoned = document.querySelector('time, svg.chart, input[type=date]');
  if (zoned && root.hasAttribute('data-reloadable') && root.getAttribute('data-tz') !== zone &&
      root.getAttribute('data-tz-cookie') !== zone && stored() === zone) location.reload();
})();

// Copy buttons: the clipboard when the browser allows it; otherwise say so and select the text.
function selectText(source) {
  var range = document.createRange();
  range.selectNodeContents(source);
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}
document.addEventListener('click', function (event) {
  var button = event.target.closest('button.copy');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  var status = button.nextElementSibling && button.nextElementSibling.classList.contains('copy-status') ? button.nextElementSibling : null;
  var say = function (text) { if (status) status.textContent = text; };
  var refused = function () {
    selectText(source);
    say('The browser did not allow copying: the text is selected, press Ctrl+C (or ⌘C).');
  };
  if (!navigator.clipboard || !navigator.clipboard.writeText) { refused(); return; }
  navigator.clipboard.writeText(source.textContent).then(function () {
    say('Copied.');
  }, refused);
});

// Select all on this page: ticks or clears every row; "All N matching" is a box of its own.
(function () {
  var all = document.getElementById('select-page');
  var form = document.getElementById('bulk');
  if (!all || !form) return;
  all.closest('label').hidden = false;
  var boxes = function () { return Array.prototype.slice.call(form.querySelectorAll('input[name=ids]')); };
  all.addEventListener('change', function () { boxes().forEach(function (b) { b.checked = all.checked; }); });
  form.addEventListener('change', function (event) {
    if (event.target.name !== 'ids') return;
    var ticked = boxes().filter(function (b) { return b.checked; }).length;
    all.checked = ticked === boxes().length;
    all.indeterminate = ticked > 0 && ticked < boxes().length;
  });
})();
`;

/** The icon browsers ask for at /favicon.ico and the pages name: a form with a check mark. */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2457c5"/><path d="M8 9h16M8 15h10" stroke="#fff" stroke-width="3" stroke-linecap="round"/><path d="M10 22l4 4 8-8" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
