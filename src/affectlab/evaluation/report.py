"""HTML reports of recorded eval runs (``affectlab report RUN [RUN ...] --html OUT``): one self-contained page with
inline SVG plots (no scripts, no network), made from the run records and per-text outputs of the results store.

* a summary table of the runs, and per-label F1 bars of every run side by side;
* per run, the multi-label confusion matrix as GoEmotions App. G draws it: for texts with gold label i, the share
  predicted with label j (each row normalised by its gold count);
* per run, a precision-recall curve per label from the stored probabilities, with the operating point the chosen
  decision gives (its threshold where the rule is per-label thresholds) marked;
* per run, the errors to read: the highest-confidence false positives and false negatives.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import InputError
from affectlab.evaluation.store import model_label
from affectlab.extras import require
from affectlab.io.atomic import write_atomically

N_ERRORS = 10
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th:first-child, td:first-child, td.text { text-align: left; }
td.text { max-width: 700px; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
figure { margin: 1em 0; }
"""


def confusion_by_row(gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """``M[i, j]``: among texts whose gold labels include i, the share predicted with label j."""
    counts = gold.T.astype(np.float64) @ pred.astype(np.float64)
    totals = gold.sum(axis=0, keepdims=True).T
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


def top_errors(outputs: dict[str, Any], labels: Sequence[str], n: int = N_ERRORS) -> dict[str, list[tuple]]:
    """The ``n`` false positives with the highest probability and the ``n`` false negatives with the lowest:
    ``(label, probability, id, text)`` each."""
    probs, pred, gold = outputs["probs"], outputs["pred"], outputs["gold"]
    found: dict[str, list[tuple]] = {}
    for kind, mask, order in (
        ("false positives", (pred == 1) & (gold == 0), -1),
        ("false negatives", (pred == 0) & (gold == 1), 1),
    ):
        rows, cols = np.nonzero(mask)
        ranked = np.argsort(order * probs[rows, cols], kind="stable")[:n]
        found[kind] = [
            (labels[cols[k]], float(probs[rows[k], cols[k]]), outputs["ids"][rows[k]], outputs["texts"][rows[k]])
            for k in ranked
        ]
    return found


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(figure)
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)  # the RDF block names a creator and a date
    return text[text.index("<svg") :]  # drop the XML prolog and doctype: the SVG is inline


def _f1_bars(runs: Sequence[dict[str, Any]], labels: Sequence[str]) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(labels) * max(1, len(runs)) ** 0.5 + 2), 3.6))
    width = 0.8 / len(runs)
    for k, run in enumerate(runs):
        per_label = run["metrics"]["per_label"]
        ax.bar(np.arange(len(labels)) + k * width, [per_label[label]["f1"] for label in labels], width,
               label=f"#{run['id']} {model_label(run)}")  # fmt: skip
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels, rotation=60, ha="right")
    ax.set_ylabel("F1")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    return _svg(fig)


def _confusion(matrix: np.ndarray, labels: Sequence[str]) -> str:
    import matplotlib.pyplot as plt

    size = max(4, 0.32 * len(labels) + 2)
    fig, ax = plt.subplots(figsize=(size, size))
    image = ax.imshow(matrix, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=90)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    if len(labels) <= 10:
        for i in range(len(labels)):
            for j in range(len(labels)):
                ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if matrix[i, j] > 0.6 else "black")  # fmt: skip
    fig.colorbar(image, ax=ax, fraction=0.046)
    return _svg(fig)


def _pr_curves(outputs: dict[str, Any], labels: Sequence[str], thresholds: Sequence[float] | None) -> str:
    import matplotlib.pyplot as plt
    from sklearn.metrics import precision_recall_curve

    columns = 4 if len(labels) > 8 else min(4, len(labels))
    rows = int(np.ceil(len(labels) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3 * columns, 2.6 * rows), squeeze=False)
    probs, pred, gold = outputs["probs"], outputs["pred"], outputs["gold"]
    for j, label in enumerate(labels):
        ax = axes[j // columns][j % columns]
        ax.set_title(label, fontsize=9)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        if gold[:, j].sum() == 0:
            ax.text(0.5, 0.5, "no gold texts", ha="center", fontsize=8)
            continue
        precision, recall, _ = precision_recall_curve(gold[:, j], probs[:, j])
        ax.plot(recall, precision, lw=1)
        tp = int((pred[:, j] & gold[:, j]).sum())
        point_p = tp / pred[:, j].sum() if pred[:, j].sum() else 0.0
        point_r = tp / gold[:, j].sum()
        name = f"t={thresholds[j]:.2f}" if thresholds is not None else "decision"
        ax.plot([point_r], [point_p], "o", color="crimson", label=name)
        ax.legend(fontsize=7, loc="lower left")
        ax.tick_params(labelsize=7)
    for k in range(len(labels), rows * columns):
        axes[k // columns][k % columns].axis("off")
    fig.supxlabel("recall")
    fig.supylabel("precision")
    fig.tight_layout()
    return _svg(fig)


def _thresholds(run: dict[str, Any], n_labels: int) -> list[float] | None:
    decision = (run.get("model_config") or {}).get("decision") or {}
    values = decision.get("values")
    if decision.get("rule") == "thresholds" and values and len(values) == n_labels and not decision.get("groups"):
        return [float(v) for v in values]
    return None


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], text_column: int | None = None) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="text">{html.escape(str(v))}</td>' if i == text_column else f"<td>{html.escape(str(v))}</td>"
            for i, v in enumerate(row)
        ) + "</tr>"
        for row in rows
    )  # fmt: skip
    return f"<table><tr>{head}</tr>{body}</table>"


def build_report(runs: Sequence[dict[str, Any]], outputs: Sequence[dict[str, Any] | None]) -> str:
    """The HTML page for ``runs`` (records with ``id``) and their per-text ``outputs``."""
    require("matplotlib", "report", "HTML reports")
    import matplotlib

    matplotlib.use("Agg")
    if not runs:
        raise InputError("no runs to report")
    labels = list(runs[0]["metrics"]["per_label"])
    for run in runs[1:]:
        if list(run["metrics"]["per_label"]) != labels:
            raise InputError(f"run {run['id']} has other labels than run {runs[0]['id']}: report them separately")
    summary = _table(
        ["run", "model", "dataset", "split", "n", "primary", "macro-F1", "macro P", "macro R"],
        [[r["id"], model_label(r), Path(r["dataset"]).name, r["split"], r["n"],
          f"{r['metrics']['primary']['name']} {r['metrics']['primary']['value']:.4f}",
          *(f"{r['metrics'][k]:.4f}" for k in ("macro_f1", "macro_precision", "macro_recall"))] for r in runs],
    )  # fmt: skip
    ids = ", ".join(f"#{r['id']}" for r in runs)
    parts = [f"<h1>affectlab report: {html.escape(ids)}</h1>", summary,
             "<h2>Per-label F1</h2>", f"<figure>{_f1_bars(runs, labels)}</figure>"]  # fmt: skip
    for run, out in zip(runs, outputs, strict=True):
        parts.append(
            f"<h2>Run #{run['id']}: {html.escape(model_label(run))} on {html.escape(str(run['dataset']))}</h2>"
        )
        if out is None:
            parts.append("<p>This run's per-text outputs were not kept; only its scores are shown above.</p>")
            continue
        parts += [
            "<h3>Confusion matrix (rows: gold label; share of its texts predicted with each label)</h3>",
            f"<figure>{_confusion(confusion_by_row(out['gold'], out['pred']), labels)}</figure>",
            "<h3>Precision-recall per label (the dot: the chosen decision)</h3>",
            f"<figure>{_pr_curves(out, labels, _thresholds(run, len(labels)))}</figure>",
        ]
        for kind, rows in top_errors(out, labels).items():
            parts.append(f"<h3>Highest-confidence {kind}</h3>")
            parts.append(
                _table(["label", "probability", "id", "text"], [(lab, f"{p:.3f}", i, t) for lab, p, i, t in rows], 3)
            )
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>affectlab report</title>'
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")  # fmt: skip


def write_report(path: str | Path, runs: Sequence[dict[str, Any]], outputs: Sequence[dict[str, Any] | None]) -> Path:
    """Write the report atomically."""
    target = Path(path)
    write_atomically({target: build_report(runs, outputs).encode("utf-8")})
    return target
