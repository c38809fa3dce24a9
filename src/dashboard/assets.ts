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
.fields th{width:28%;white-space:nowrap}.fields td{white-space:pre-wrap;word-break:break-word}
.preview{color:#4a5266;max-width:520px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
label{display:block;margin:.5rem 0;font-weight:500}
input:not([type=checkbox]){display:block;width:100%;padding:.5rem .6rem;border:1px solid #cfd4dc;border-radius:6px;font:inherit;margin-top:.25rem}
.row input{width:auto;flex:1;margin:0}
textarea,select{display:block;width:100%;padding:.5rem .6rem;border:1px solid #cfd4dc;border-radius:6px;font:inherit;margin-top:.25rem}
.attempt{font-size:.85rem;white-space:normal;word-break:break-word}
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
.muted{color:#69718a}.crumbs{color:#69718a}
pre{background:#f3f4f7;padding:.9rem;border-radius:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.secret{border:1px solid #f5d28b;background:#fff8e6;border-radius:8px;padding:.75rem 1rem;margin-bottom:1rem}
.hook{border-top:1px solid #eceef2;padding:.75rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88em}
@media (max-width:640px){.top{gap:.75rem}.fields th{width:auto}}
`;

export const appJs = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('button.copy');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent).then(function () {
    var label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(function () { button.textContent = label; }, 1500);
  });
});
`;
