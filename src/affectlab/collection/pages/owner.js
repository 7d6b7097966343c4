"use strict";
// Everything shown is set with textContent, never as HTML.
const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromLink) { sessionStorage.setItem("affectlab-owner", fromLink); history.replaceState(null, "", location.pathname); }
let TOKEN = fromLink || sessionStorage.getItem("affectlab-owner");
async function api(method, path, body) {
  const response = await fetch(path, {method, headers: {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}
function fail(error) { document.getElementById("error").textContent = error.message; }
function fill(id, columns, rows, extra) {
  const table = document.getElementById(id); table.replaceChildren();
  const head = table.insertRow(); for (const c of columns) { const th = document.createElement("th"); th.textContent = c; head.append(th); }
  for (const row of rows) {
    const tr = table.insertRow(); tr.dataset.key = row[columns[0]];
    for (const c of columns) { let v = row[c]; if (typeof v === "number" && !Number.isInteger(v)) v = v.toFixed(3);
      if (Array.isArray(v)) v = v.map(a => a.action ? `${a.action} (${a.rule})` : `${a.stage} ${a.passed ? "passed" : "failed"}`).join(", ");
      tr.insertCell().textContent = v === null || v === undefined ? "" : String(v); }
    if (extra) tr.insertCell().append(extra(row));
  }
}
function button(text, action) { const b = document.createElement("button"); b.textContent = text; b.onclick = () => action().catch(fail); return b; }
async function refresh() {
  try {
    const progress = await api("GET", "/api/owner/progress");
    fill("progress", ["stage", "open", "items", "complete", "answers", "skips", "open_pages"], progress.stages,
      row => button(row.open && row.items ? "agreement" : "open stage", row.open ? () => show(`/api/owner/stages/${row.stage}/agreement`)
        : async () => { await api("POST", `/api/owner/stages/${row.stage}/open`); await refresh(); }));
    const stages = document.getElementById("stages"); stages.replaceChildren();
    for (const s of progress.stages) stages.append(button(`aggregation preview: ${s.stage}`, () => show(`/api/owner/stages/${s.stage}/aggregation`)));
    const people = await api("GET", "/api/owner/annotators");
    fill("annotators", ["name", "pseudonym", "status", "pages", "skipped_pages", "median_seconds", "control_accuracy", "exams", "actions"],
      people.annotators, row => button("revoke", async () => { await api("DELETE", `/api/owner/annotators/${encodeURIComponent(row.name)}`); await refresh(); }));
    document.getElementById("error").textContent = "";
  } catch (error) { fail(error); }
}
async function show(path) { document.getElementById("detail").textContent = JSON.stringify(await api("GET", path), null, 1); }
document.getElementById("invite").addEventListener("submit", async event => {
  event.preventDefault();
  try {
    const made = await api("POST", "/api/owner/annotators", {name: document.getElementById("invite-name").value});
    document.getElementById("invite-link").textContent = `${location.origin}/#token=${made.token}`;
    await refresh();
  } catch (error) { fail(error); }
});
document.getElementById("rotate").addEventListener("click", async () => {
  if (!confirm("Replace the owner token? The old one stops working at once.")) return;
  try {
    const made = await api("POST", "/api/owner/token");
    TOKEN = made.owner_token; sessionStorage.setItem("affectlab-owner", TOKEN);
    document.getElementById("new-token").textContent =
      `new owner token (shown once; keep it secret; the old one no longer works): ${TOKEN} (this page: ${location.origin}/owner#token=${TOKEN})`;
  } catch (error) { fail(error); }
});
if (!TOKEN) fail(new Error("open this page as /owner#token=OWNER_TOKEN")); else { refresh(); setInterval(refresh, 10000); }
