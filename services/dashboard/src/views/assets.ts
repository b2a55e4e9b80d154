import crypto from "node:crypto";

// The one stylesheet and the one script, kept as modules so the esbuild bundle carries
// them (no asset copying) and served with a content hash in the URL, cached for a year.

/** Colours meet WCAG 2.1 AA: body text ≥ 7:1, badges ≥ 4.5:1, chart fills and focus rings ≥ 3:1. */
export const STYLESHEET = `
:root{--ink:#111827;--muted:#4b5563;--line:#d1d5db;--bg:#f3f4f6;--card:#fff;--brand:#1d4ed8;--brand-ink:#fff;
--danger:#b91c1c;--ok:#166534;--focus:#1d4ed8;--radius:8px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--ink);background:var(--bg);line-height:1.5}
*{box-sizing:border-box}
body{margin:0;font-size:1rem}
a{color:var(--brand)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip-link{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip-link:focus{left:.5rem;top:.5rem}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.top{background:#0f172a;color:#f8fafc}
.top a{color:#f8fafc}
.top :focus-visible{outline-color:#fbbf24}
.top-inner{max-width:72rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
.brand{font-weight:700;font-size:1.15rem;text-decoration:none}
.brand-dim{font-weight:400;opacity:.85}
.brand-public{margin:0 0 .5rem;color:var(--brand)}
.who{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:center;font-size:.9rem;min-width:0}
.who-account{font-weight:600}
.who-email{color:#cbd5e1;overflow-wrap:anywhere}
.nav{max-width:72rem;margin:0 auto;padding:0 .5rem}
.nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap}
.nav a{display:block;padding:.6rem .6rem;text-decoration:none;border-bottom:3px solid transparent;color:#e2e8f0}
.nav a:hover{color:#fff;text-decoration:underline}
.nav a[aria-current=page]{border-bottom-color:#60a5fa;color:#fff;font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1rem}
main:focus{outline:none}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
h1,h2,h3,code{overflow-wrap:anywhere}
h3{font-size:1rem;margin:1rem 0 .5rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1rem;margin-bottom:1rem;min-width:0}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,14rem),1fr))}
.stat{font-size:1.75rem;font-weight:700;margin:0}
.stat-label{color:var(--muted);margin:0}
.muted{color:var(--muted)}
.public{display:flex;justify-content:center;padding-top:2rem}
.public-card{width:100%;max-width:26rem}
.field{margin-bottom:1rem}
.field label{display:block;font-weight:600;margin-bottom:.25rem}
.optional{font-weight:400;color:var(--muted)}
.hint{color:var(--muted);font-size:.9rem;margin:.1rem 0 .35rem}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=date],input[type=search],select{
width:100%;max-width:32rem;font:inherit;padding:.5rem .6rem;border:1px solid #6b7280;border-radius:6px;background:#fff;color:var(--ink)}
.has-error input,.has-error select{border:2px solid var(--danger)}
.field-error{color:var(--danger);font-weight:600;margin:.3rem 0 0}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0 0 1rem;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.check{display:flex;gap:.5rem;align-items:center;margin:.25rem 0}
.check input{width:1.1rem;height:1.1rem}
.button{display:inline-block;font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:6px;border:2px solid transparent;cursor:pointer;text-decoration:none;line-height:1.3}
.button-primary{background:var(--brand);color:var(--brand-ink)}
.button-primary:hover{background:#1e40af}
.button-secondary{background:#fff;color:var(--brand);border-color:var(--brand)}
.button-danger{background:#fff;color:var(--danger);border-color:var(--danger)}
.button-ghost{background:transparent;color:#f8fafc;border-color:#94a3b8;padding:.25rem .75rem}
.inline-form{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
.filters{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,12rem),1fr));align-items:end}
.filters .field{margin-bottom:.75rem}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:#374151;white-space:nowrap}
td code{overflow-wrap:anywhere}
.empty{color:var(--muted);font-style:italic}
.pager{display:flex;gap:.5rem;margin-top:.75rem;flex-wrap:wrap}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.85rem;font-weight:600;white-space:nowrap}
.badge-delivered,.badge-succeeded,.badge-verified{background:#dcfce7;color:#166534}
.badge-failed,.badge-expired{background:#fee2e2;color:#991b1b}
.badge-queued,.badge-pending{background:#dbeafe;color:#1e40af}
.badge-sent{background:#f3e8ff;color:#6b21a8}
.badge-scheduled{background:#fef9c3;color:#854d0e}
.badge-canceled,.badge-revoked{background:#e5e7eb;color:#374151}
.notice{border-radius:6px;padding:.75rem 1rem;margin-bottom:1rem;border:1px solid}
.notice-success{background:#f0fdf4;border-color:#16a34a;color:#14532d}
.notice-error{background:#fef2f2;border-color:#dc2626;color:#7f1d1d}
.notice-info{background:#eff6ff;border-color:#2563eb;color:#1e3a8a}
.secret{background:#fffbeb;border:2px solid #b45309;border-radius:6px;padding:.75rem 1rem;margin-bottom:1rem}
.secret-label{font-weight:700;margin:0 0 .25rem}
.secret-row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret-value{font-size:1rem;background:#fff;border:1px solid var(--line);padding:.35rem .5rem;border-radius:4px;overflow-wrap:anywhere;user-select:all;max-width:100%}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}
dl.facts dt{font-weight:600;color:#374151}
dl.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.timeline{list-style:none;margin:0;padding:0;border-left:3px solid var(--line)}
.timeline li{padding:.25rem 0 .75rem 1rem;position:relative}
.chart svg{width:100%;height:auto;display:block}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0 0;font-size:.9rem}
.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:2px;vertical-align:-.1rem;margin-right:.3rem;border:1px solid #111827}
.js-only{display:none}
.js .js-only{display:inline-block}
details summary{cursor:pointer;font-weight:600;margin:.5rem 0}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.5rem}h1{font-size:1.3rem}
.table-wrap table,.table-wrap tbody,.table-wrap tr,.table-wrap td{display:block;width:100%}
.table-wrap thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.table-wrap tr{border-bottom:2px solid var(--line);padding:.35rem 0}
.table-wrap td{border:0;padding:.15rem 0;display:grid;grid-template-columns:minmax(6rem,40%) 1fr;gap:.5rem}
.table-wrap td::before{content:attr(data-label);font-weight:600;color:#374151}
.table-wrap td[data-label=""]::before{content:none}
.table-wrap td[data-label=""]{display:block}}
`;

/** Progressive enhancement only: a copy button next to secrets, a confirmation before destructive actions. Everything works without it. */
export const SCRIPT = `
document.documentElement.classList.add("js");
document.addEventListener("submit", function (event) {
  var question = event.target.getAttribute && event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("click", function (event) {
  var button = event.target.closest ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    button.textContent = "Copied";
  });
});
`;

/** Short content hash of both assets: a new deploy gets new URLs, so year-long caching is safe. */
export const ASSET_VERSION = crypto
  .createHash("sha256")
  .update(STYLESHEET)
  .update(SCRIPT)
  .digest("hex")
  .slice(0, 12);
