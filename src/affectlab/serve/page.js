const UI = {
  en: {hint: "One text per line, in any of the 28 languages of SemEval-2025 Task 11 (English, Ukrainian, Spanish, German, Russian, Portuguese, Hindi, Chinese, ...).",
       go: "Detect", taxonomy: "Taxonomy", intensity: "intensity (0-3)", level: "intensity",
       unsupported: "not a language the model was trained on: take these scores as a guess",
       undetermined: "the language could not be told (too short, or too repetitive): take these scores as a guess",
       languages: "languages",
       document: "one document (the arc of its sentences)", arc: "sentence by sentence",
       explain: "why (the words that weigh)", why: "words for and against", against: "against",
       open: "open-ended feelings (en, es)", ui: "Interface", labels: "labels", none: "(none)",
       scale: "Scores are on the decision's scale: the labels given are the top bars (ekman, goemotions: those at 0.5 or above)."},
  uk: {hint: "Один текст на рядок будь-якою з 28 мов SemEval-2025 Task 11 (українська, англійська, іспанська, німецька, російська, португальська, гінді, китайська, ...).",
       go: "Аналізувати", taxonomy: "Таксономія", intensity: "інтенсивність (0-3)", level: "інтенсивність",
       unsupported: "модель не навчали на цій мові: оцінки — лише здогад",
       undetermined: "мову не визначено (текст закороткий або одноманітний): оцінки — лише здогад",
       languages: "мови",
       document: "один документ (дуга його речень)", arc: "речення за реченням",
       explain: "чому (слова, що важать)", why: "слова за і проти", against: "проти",
       open: "відкриті стани (en, es)", ui: "Інтерфейс", labels: "емоції", none: "(немає)",
       scale: "Оцінки — на шкалі рішення: вказані емоції — найвищі смуги (ekman, goemotions: від 0.5)."},
  es: {hint: "Un texto por línea, en cualquiera de los 28 idiomas de SemEval-2025 Task 11 (inglés, ucraniano, español, alemán, ruso, portugués, hindi, chino, ...).",
       go: "Detectar", taxonomy: "Taxonomía", intensity: "intensidad (0-3)", level: "intensidad",
       unsupported: "el modelo no se entrenó con este idioma: tome estas puntuaciones como una conjetura",
       undetermined: "no se pudo saber el idioma (texto muy corto o repetitivo): tome estas puntuaciones como una conjetura",
       languages: "idiomas",
       document: "un documento (el arco de sus oraciones)", arc: "oración por oración",
       explain: "por qué (las palabras que pesan)", why: "palabras a favor y en contra", against: "en contra",
       open: "sentimientos abiertos (en, es)", ui: "Interfaz", labels: "emociones", none: "(ninguna)",
       scale: "Las puntuaciones están en la escala de la decisión: las emociones dadas son las barras más altas (ekman, goemotions: las de 0.5 o más)."},
};
let words = UI.en;
function setUi(lang) {
  words = UI[lang];
  document.documentElement.lang = lang;
  document.getElementById("hint").textContent = words.hint;
  document.getElementById("go").textContent = words.go;
  document.getElementById("taxonomy-label").textContent = words.taxonomy;
  document.getElementById("open-label").textContent = words.open;
  document.getElementById("document-label").textContent = words.document;
  document.getElementById("intensity-label").textContent = words.intensity;
  document.getElementById("explain-label").textContent = words.explain;
  document.getElementById("ui-label").textContent = words.ui;
}
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}
function bars(container, scores, chosen, levels) {
  for (const [label, score] of scores) {
    const row = el("div", "row");
    row.appendChild(el("span", "", label));
    const track = el("div", "");
    const bar = el("div", chosen.includes(label) ? "bar on" : "bar");
    bar.style.width = Math.round(score * 100) + "%";
    bar.dataset.label = label;
    track.appendChild(bar);
    row.appendChild(track);
    row.appendChild(el("span", "", score.toFixed(2)));
    const level = levels && label in levels ? words.level + " " + levels[label] : "";
    row.appendChild(el("span", "hint", level));
    container.appendChild(row);
  }
}
function arc(container, sentences) {
  const box = el("div", "arc");
  box.appendChild(el("div", "hint", words.arc));
  for (const sentence of sentences) {
    const [label, score] = Object.entries(sentence.scores).sort((a, b) => b[1] - a[1])[0];
    const quiet = sentence.labels.length === 1 && ["none", "neutral", "others"].includes(sentence.labels[0]);
    const row = el("div", quiet ? "arc-row quiet" : "arc-row");
    row.appendChild(el("span", "", sentence.labels.join(", ") || words.none));
    const bar = el("div", quiet ? "bar" : "bar on");
    bar.style.width = Math.round(score * 100) + "%";
    bar.dataset.label = label;
    row.appendChild(bar);
    row.appendChild(el("span", sentence.supported === false ? "hint note" : "hint", sentence.lang));
    row.appendChild(el("span", "", sentence.text));
    row.title = sentence.start + "-" + sentence.end + " (" + sentence.lang + ")";
    box.appendChild(row);
  }
  container.appendChild(box);
}
function shares(languages) {
  // A document's languages and their shares of its characters, as the notes write them: "en 41 %, fi 18 %".
  return Object.entries(languages).map(([lang, share]) => lang + " " + Math.round(share * 100) + " %").join(", ");
}
function why(container, text, explanation) {
  // Offsets are in code points (as Python counts them), so the text is sliced as an array of code points.
  const labels = Object.keys(explanation);
  if (!labels.length) return;
  const chars = Array.from(text);
  const box = el("div", "why");
  const pick = el("select", "why-label");
  pick.setAttribute("aria-label", words.why);
  for (const label of labels) pick.appendChild(el("option", "", label));
  box.appendChild(el("span", "hint", words.why + ": "));
  box.appendChild(pick);
  const shown = el("div", "why-text");
  function draw(label) {
    shown.textContent = "";
    const spans = explanation[label];
    const largest = Math.max(0, ...spans.map(s => Math.abs(s.weight)));
    let at = 0;
    for (const span of spans) {
      if (span.start > at) shown.appendChild(document.createTextNode(chars.slice(at, span.start).join("")));
      const word = el("span", "word", chars.slice(span.start, span.end).join(""));
      const share = largest > 0 ? Math.abs(span.weight) / largest : 0;
      const colour = span.weight > 0 ? "46, 125, 50" : "198, 40, 40";
      word.style.backgroundColor = "rgba(" + colour + ", " + (0.75 * share).toFixed(3) + ")";
      word.title = label + " " + (span.weight > 0 ? "+" : "") + span.weight.toFixed(3) + (span.weight < 0 ? " (" + words.against + ")" : "");
      word.dataset.weight = span.weight;
      shown.appendChild(word);
      at = span.end;
    }
    if (at < chars.length) shown.appendChild(document.createTextNode(chars.slice(at).join("")));
  }
  pick.addEventListener("change", e => draw(e.target.value));
  draw(labels[0]);
  box.appendChild(shown);
  container.appendChild(box);
}
async function run() {
  const out = document.getElementById("results");
  out.textContent = "";
  const whole = document.getElementById("document").checked;
  const value = document.getElementById("texts").value;
  const texts = whole ? [value] : value.split("\n").map(t => t.trim()).filter(t => t);
  const open = document.getElementById("open").checked;
  const intensity = document.getElementById("intensity").checked;
  const explain = document.getElementById("explain").checked;
  const body = open ? {texts} : {texts, taxonomy: document.getElementById("taxonomy").value, intensity, sentences: whole, explain};
  let response, data;
  try {
    response = await fetch(open ? "/v1/open" : "/v1/detect",
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    data = await response.json();
  } catch (error) {
    out.appendChild(el("p", "error", String(error)));
    return;
  }
  if (!response.ok) {
    out.appendChild(el("p", "error", data.error || response.statusText));
    return;
  }
  for (const result of data.results) {
    const box = el("div", "result");
    const shown = result.text.length > 400 ? result.text.slice(0, 397) + "..." : result.text;
    box.appendChild(el("div", "", shown));
    if (open) {
      const terms = result.terms.map(t => [t.term, t.score]);
      box.appendChild(el("div", "labels", terms.slice(0, 3).map(t => t[0]).join(", ")));
      bars(box, terms, terms.slice(0, 1).map(t => t[0]));
    } else {
      const sorted = Object.entries(result.scores).sort((a, b) => b[1] - a[1]);
      box.appendChild(el("div", "labels", words.labels + ": " + (result.labels.join(", ") || words.none) + " (" + result.lang + ")"));
      if (result.supported === false) box.appendChild(el("div", "note", result.lang === "und" ? words.undetermined : words.unsupported));
      if (result.languages) box.appendChild(el("div", "note languages", words.languages + ": " + shares(result.languages)));
      bars(box, sorted, result.labels, result.intensities);
      if (result.explanation) why(box, result.text, result.explanation);
      if (result.sentences) arc(box, result.sentences);
    }
    out.appendChild(box);
  }
  if (!open) out.appendChild(el("p", "hint", words.scale));
}
document.getElementById("go").addEventListener("click", run);
document.getElementById("ui").addEventListener("change", e => setUi(e.target.value));
