"use strict";
// Texts are always set with textContent, never as HTML: an item's text cannot run code here.
const stored = sessionStorage.getItem("affectlab-token");
const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
// the token leaves the address bar at once (a link with "?lang=" keeps its language)
if (fromLink) { sessionStorage.setItem("affectlab-token", fromLink); history.replaceState(null, "", location.pathname + location.search); }
const TOKEN = fromLink || stored;
const ASKED_LANGUAGE = new URLSearchParams(location.search).get("lang");
// until the protocol says which languages it offers (a refused link is told before), the one asked or the browser's
let protocol = null, form = null, messages = {};
let lang = ASKED_LANGUAGE || sessionStorage.getItem("affectlab-language") || (navigator.language || "en").split("-")[0];

// Every word the page shows comes from the message catalogue of its language (messages.json: en, uk, es, with the
// protocol's own messages over it: a protocol may add a language or reword a message); a language without one
// falls back to English. The protocol's own texts (labels, instructions) use local().
function t(key, vars = {}) {
  const text = (messages[lang] || {})[key] ?? messages.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}
async function api(method, path, body) {
  const response = await fetch(path, {method, headers: {"Authorization": "Bearer " + TOKEN,
    "Content-Type": "application/json"}, body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) throw refusal(data, response.statusText);
  return data;
}
// A refusal the catalogue knows ("message": its key and values) is shown in the page's language; any other in the
// service's own words.
function refusal(data, fallback) {
  const error = new Error(data.error || fallback);
  error.message_key = data.message ? data.message.key : null;
  error.params = data.message ? data.message.params : {};
  return error;
}
function say(text) { document.getElementById("status").textContent = text; }
function fail(error) {
  const known = error.message_key && ((messages[lang] || {})[error.message_key] ?? messages.en[error.message_key]);
  document.getElementById("error").textContent = known ? t(error.message_key, error.params) : (error.message || String(error));
}
function clear() { document.getElementById("error").textContent = ""; document.getElementById("main").replaceChildren(); }
function local(texts) { return texts[lang] || Object.values(texts)[0] || ""; }

async function start() {
  try {
    messages = await (await fetch("/static/messages.json")).json();
    if (!TOKEN) { fail(new Error(t("no_token"))); return; }
    protocol = await api("GET", "/api/protocol");
    for (const [code, own] of Object.entries(protocol.messages || {})) messages[code] = {...(messages[code] || {}), ...own};
    const languages = protocol.interface_languages, chosen = ASKED_LANGUAGE || sessionStorage.getItem("affectlab-language");
    lang = languages.includes(chosen) ? chosen : languages[0];
    const select = document.getElementById("language");
    select.replaceChildren(...languages.map(code => el("option", {value: code, text: code})));
    select.value = lang;
    select.addEventListener("change", () => { lang = select.value; sessionStorage.setItem("affectlab-language", lang); home().catch(fail); });
    await home();
  } catch (error) { fail(error); }
}

function localisePage() {
  document.documentElement.lang = lang;
  document.getElementById("title").textContent = t("title");
  document.getElementById("language-label").textContent = t("language");
  document.getElementById("keys").textContent = t("keys");
}

async function home() {
  clear();
  localisePage();
  const me = await api("GET", "/api/me");
  const until = me.until ? t("until", {time: new Date(me.until * 1000).toLocaleString(lang)}) : "";
  say(t("status_line", {name: me.name, status: t("status_" + me.status), until, pages: me.pages}));
  const main = document.getElementById("main");
  for (const stage of me.stages.filter(s => s.open)) {
    const action = t(stage.needs === "training" ? "read_training" : stage.needs === "exam" ? "take_exam" : "annotate");
    const go = () => (stage.needs === "training" ? training(stage.name) : stage.needs === "exam" ? exam(stage.name)
      : nextPage(stage.name)).catch(fail);
    main.append(el("p", {}, el("button", {id: "stage-" + stage.name, onclick: go, text: `${action}: ${stage.name}`})));
  }
  const first = main.querySelector("button"); if (first) first.focus();
}

function stageOf(name) { return protocol.stages.find(s => s.name === name); }

async function training(stageName) {
  const data = await api("GET", `/api/stages/${encodeURIComponent(stageName)}/training`);
  clear();
  const main = document.getElementById("main");
  main.append(el("h2", {text: t("instructions")}), el("pre", {class: "instructions", text: local(stageOf(stageName).instructions)}));
  main.append(el("h2", {text: t("examples")}));
  for (const example of data.examples) {
    const answer = example.labels.length ? example.labels.map(l => `${l} ${example.intensities[l] || ""}`).join(", ")
      : (protocol.none_choice ? local(protocol.none_choice.text) : t("none"));
    main.append(el("div", {class: "item"}, el("div", {class: "text", text: example.text}),
      el("div", {text: t("answer", {answer})}), el("div", {class: "note", text: local(example.explanation || {})})));
  }
  const next = el("button", {id: "to-exam", text: t("to_exam"), onclick: () => exam(stageName).catch(fail)});
  main.append(next); next.focus();
}

async function exam(stageName) {
  const data = await api("GET", `/api/stages/${encodeURIComponent(stageName)}/exam`);
  showItems(stageName, data.items.map(i => ({...i, context: []})), async answers => {
    const result = await api("POST", `/api/stages/${encodeURIComponent(stageName)}/exam`, {answers});
    say(t("exam_result", {accuracy: Math.round(result.accuracy * 100), pass: Math.round(result.pass_accuracy * 100),
      verdict: t(result.passed ? "passed" : "not_passed")}));
    if (result.passed) await nextPage(stageName); else await training(stageName);
  }, t("send_exam"));
}

async function nextPage(stageName) {
  const page = await api("POST", `/api/stages/${encodeURIComponent(stageName)}/next`);
  if (!page.page) { clear(); say(page.reason); return; }
  showItems(stageName, page.items, async answers => {
    const me = await api("POST", `/api/pages/${page.page}/submit`, {answers});
    if (me.status !== "active") { await home(); return; }
    await nextPage(stageName);
  }, t("send_page"));
}

function showItems(stageName, items, send, sendText) {
  clear();
  const stage = stageOf(stageName), main = document.getElementById("main");
  const levels = protocol.intensity ? local(protocol.intensity.levels) : null;
  form = {items: [], focused: 0};
  items.forEach((item, index) => {
    const card = el("section", {class: "item", "data-position": item.position, tabindex: "-1"});
    if (protocol.shows_context && item.context.length) card.append(el("div", {class: "context", text: item.context.join("\n")}));
    card.append(el("div", {class: "text", text: item.text}));
    const state = {position: item.position, card, boxes: {}, levels: {}, last: null};
    stage.labels.forEach((name, i) => {
      const choice = protocol.labels.find(c => c.name === name);
      const box = el("input", {type: "checkbox", id: `c${index}-${name}`, "data-label": name});
      const span = el("span", {class: "choice"}, box, el("label", {for: box.id, text: `${choice.emoji || ""} ${local(choice.text)}`}),
        el("span", {class: "key", text: i < 9 ? `[${i + 1}]` : ""}));
      if (levels) {
        const select = el("select", {"aria-label": t("intensity_of", {label: local(choice.text)}), "data-intensity": name});
        select.append(el("option", {value: "", text: t("intensity")}), ...levels.map((l, v) => el("option", {value: String(v + 1), text: l})));
        select.disabled = true; span.append(select); state.levels[name] = select;
        box.addEventListener("change", () => { select.disabled = !box.checked; if (!box.checked) select.value = ""; });
      }
      box.addEventListener("change", () => { if (box.checked) state.last = name; });
      state.boxes[name] = box; card.append(span);
    });
    for (const [kind, choice, key] of [["none", protocol.none_choice, "0"], ["other", protocol.other_choice, "o"]]) {
      if (!choice) continue;
      const box = el("input", {type: "checkbox", id: `${kind[0]}${index}`, [`data-${kind}`]: "1"});
      box.addEventListener("change", () => setExclusive(state, kind, box.checked));
      card.append(el("span", {class: "choice"}, box, el("label", {for: box.id, text: local(choice.text)}), el("span", {class: "key", text: `[${key}]`})));
      state[kind] = box;
    }
    if (protocol.skip) { state.skip = el("input", {type: "checkbox", id: `s${index}`, "data-skip": "1"});
      card.append(el("span", {class: "choice"}, state.skip, el("label", {for: state.skip.id, text: t("skip")}), el("span", {class: "key", text: "[s]"}))); }
    if (protocol.flag || protocol.difficult_flag) { state.flag = el("input", {type: "checkbox", id: `f${index}`, "data-flag": "1"});
      card.append(el("span", {class: "choice"}, state.flag, el("label", {for: state.flag.id, text: t(protocol.difficult_flag ? "difficult" : "flag")}), el("span", {class: "key", text: "[f]"}))); }
    card.addEventListener("focusin", () => focus(index, false));
    form.items.push(state); main.append(card);
  });
  const button = el("button", {id: "send", text: sendText, onclick: () => collect(send)});
  main.append(button); focus(0, true);
}

function setExclusive(state, kind, on) {
  // the none and other choices exclude each other and every label
  state[kind].checked = on;
  const otherKind = kind === "none" ? "other" : "none";
  if (on && state[otherKind]) state[otherKind].checked = false;
  for (const [name, box] of Object.entries(state.boxes)) {
    if (on) { box.checked = false; if (state.levels[name]) { state.levels[name].value = ""; state.levels[name].disabled = true; } }
    box.disabled = on;
  }
}
function focus(index, move) {
  if (!form || index < 0 || index >= form.items.length) return;
  form.items.forEach((s, i) => s.card.classList.toggle("focused", i === index));
  form.focused = index; if (move) form.items[index].card.focus();
}
async function collect(send) {
  const answers = [];
  for (const state of form.items) {
    const labels = {};
    for (const [name, box] of Object.entries(state.boxes)) {
      if (!box.checked) continue;
      const select = state.levels[name];
      if (select && !select.value) { fail(new Error(t("need_intensity", {n: state.position + 1, label: local(protocol.labels.find(c => c.name === name).text)}))); focus(form.items.indexOf(state), true); return; }
      labels[name] = select ? Number(select.value) : 1;
    }
    const skip = Boolean(state.skip && state.skip.checked), none = Boolean(state.none && state.none.checked);
    const other = Boolean(state.other && state.other.checked);
    if (!skip && !none && !other && !Object.keys(labels).length) { fail(new Error(t("need_choice", {n: state.position + 1}))); focus(form.items.indexOf(state), true); return; }
    const answer = {position: state.position, labels: skip ? {} : labels, none: skip ? false : none, skip};
    if (state.other) answer.other = skip ? false : other;
    if (state.flag && state.flag.checked) answer.flag = protocol.difficult_flag ? "difficult" : "problem";
    answers.push(answer);
  }
  try { document.getElementById("error").textContent = ""; await send(answers); } catch (error) { fail(error); }
}

document.addEventListener("keydown", event => {
  if (!form || !form.items.length || event.target.tagName === "SELECT") return;
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); document.getElementById("send").click(); return; }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const state = form.items[form.focused];
  const toggle = box => { if (box && !box.disabled) { box.checked = !box.checked; box.dispatchEvent(new Event("change")); } };
  if (event.key === "j" || event.key === "ArrowDown") focus(form.focused + 1, true);
  else if (event.key === "k" || event.key === "ArrowUp") focus(form.focused - 1, true);
  else if (/^[1-9]$/.test(event.key)) toggle(Object.values(state.boxes)[Number(event.key) - 1]);
  else if (event.key === "0") toggle(state.none);
  else if (event.key === "o") toggle(state.other);
  else if (event.key === "s") toggle(state.skip);
  else if (event.key === "f") toggle(state.flag);
  else if ("qwe".includes(event.key) && state.last && state.levels[state.last] && !state.levels[state.last].disabled) {
    const select = state.levels[state.last], value = "qwe".indexOf(event.key) + 1;
    if (value < select.options.length) select.value = String(value);
  } else return;
  event.preventDefault();
});
start();
