"""A citable summary of a crowd annotation: Markdown text, a chart of agreement per label, and the shared
formatting of the statistics (used by the command line's tables too).

:func:`markdown_report` renders the data summary, the agreement table (overall and per label, with bootstrap
intervals), the aggregation and, when given, the comparison with released labels, followed by the exact command
and the library versions. :func:`agreement_chart` draws Krippendorff's alpha per label with its interval as a
PNG (matplotlib, Agg backend, imported only here).
"""

from __future__ import annotations

import io
import platform
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from affectlab.annotation.aggregation import Aggregation
from affectlab.annotation.comparison import describe_left_out
from affectlab.annotation.readers import Annotations
from affectlab.errors import InputError
from affectlab.versions import library_versions as installed_versions

STATISTIC_NAMES = {
    "krippendorff_alpha": "Krippendorff's alpha",
    "fleiss_kappa": "Fleiss' kappa",
    "cohen_kappa_mean": "mean Cohen's kappa",
    "interrater_correlation": "interrater correlation",
}
METHOD_NAMES = {
    "majority": "majority vote",
    "dawid-skene": "Dawid-Skene (Dawid and Skene 1979)",
    "glad": "GLAD (Whitehill et al. 2009)",
    "mace": "MACE (Hovy et al. 2013)",
    "mmsr": "M-MSR (Ma and Olshevsky 2020)",
    "wawa": "Wawa (majority vote weighted by agreement with the majority)",
}
PACKAGES = ("affectlab", "crowd-kit", "krippendorff")


class Footnotes:
    """Numbered reasons for the statistics shown as "n/a"; the same reason keeps its number."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def mark(self, reason: str) -> str:
        """The reference to ``reason``'s note, "(1)"; a new reason gets the next number."""
        if reason not in self.reasons:
            self.reasons.append(reason)
        return f"({self.reasons.index(reason) + 1})"

    def lines(self) -> list[str]:
        """The notes, "(1) reason", in order."""
        return [f"({number}) {reason}" for number, reason in enumerate(self.reasons, start=1)]


def statistic_cell(block: Mapping[str, Any], name: str, notes: Footnotes, digits: int = 3) -> str:
    """``0.459 (0.431-0.487)``: a statistic of an agreement block with its 95 % interval; "n/a (1)" with a
    footnote where it is undefined, and no interval where none was computed."""
    reasons = block.get("undefined", {})
    value = block[name]
    if value is None:
        return f"n/a {notes.mark(reasons.get(name, 'undefined'))}"
    interval = block.get(f"{name}_ci95")
    if interval is not None:
        return f"{value:.{digits}f} ({interval[0]:.{digits}f}–{interval[1]:.{digits}f})"
    if f"{name}_ci95" in reasons:
        return f"{value:.{digits}f} (no interval {notes.mark(reasons[f'{name}_ci95'])})"
    return f"{value:.{digits}f}"


def agreement_rows(report: Mapping[str, Any], notes: Footnotes) -> list[list[str]]:
    """One row per block ("all labels" first, then each label): name, the four statistics, items, annotators."""
    blocks = {"all labels": report["overall"], **report["per_label"]}
    return [
        [
            name,
            *(statistic_cell(block, stat, notes) for stat in STATISTIC_NAMES),
            f"{block['n_items']:,}",
            str(block["n_annotators"]),
        ]
        for name, block in blocks.items()
    ]


def aggregation_summary(aggregation: Aggregation) -> dict[str, Any]:
    """Method, cut, items passing and how many items have each label (all items, and the passing ones)."""
    items = aggregation.items
    passing = items[items["passes"].to_numpy(dtype=bool)]
    return {
        "method": aggregation.method,
        "min_confidence": aggregation.min_confidence,
        "n_items": len(items),
        "n_passing": len(passing),
        "share_passing": aggregation.share_passing,
        "n_control_questions": aggregation.n_controls,
        "label_counts": {
            label: {
                "all": int(sum(label in labels for labels in items["labels"])),
                "passing": int(sum(label in labels for labels in passing["labels"])),
            }
            for label in aggregation.labels
        },
    }


def data_summary(annotations: Annotations) -> dict[str, Any]:
    """Items, annotators, labels, ratings and the values used."""
    frame = annotations.frame
    n_questions = len(frame[["item", "label"]].drop_duplicates())
    return {
        "n_items": len(annotations.items),
        "n_annotators": len(annotations.annotators),
        "labels": list(annotations.labels),
        "n_ratings": len(frame),
        "ratings_per_question": len(frame) / n_questions,
        "values": sorted(float(v) for v in frame["value"].unique()),
        "level": annotations.level,
    }


def library_versions() -> dict[str, str]:
    """Installed versions of affectlab, crowd-kit and krippendorff, and of Python."""
    return {"python": platform.python_version(), **installed_versions(PACKAGES)}


def markdown_report(
    source: str,
    annotations: Annotations,
    agreement: Mapping[str, Any],
    n_bootstrap: int,
    aggregation: Aggregation,
    command: str,
    binarized: bool = False,
    comparison: Mapping[str, Any] | None = None,
    gold: Sequence[str] = (),
    today: date | None = None,
) -> str:
    """The report as Markdown; ``agreement`` is :func:`agreement_report`'s dict, ``comparison``
    :func:`compare`'s, ``command`` the command line that made it."""
    versions = library_versions()
    stamp = ", ".join(f"{package} {version}" for package, version in versions.items())
    lines = [
        f"# Crowd annotation report: {source}",
        "",
        f"Made on {(today or date.today()).isoformat()} with {stamp}.",
        "",
        *_data_section(source, annotations, binarized),
        *_agreement_section(agreement, annotations.level, n_bootstrap),
        *_aggregation_section(aggregation),
    ]
    if comparison is not None:
        lines += _comparison_section(comparison, gold)
    lines += ["## Reproduce", "", "```", command, "```", ""]
    return "\n".join(lines)


def _data_section(source: str, annotations: Annotations, binarized: bool) -> list[str]:
    data = data_summary(annotations)
    values = ", ".join(f"{v:g}" for v in data["values"])
    if binarized:
        values += " (binarized: a rating above 0 counts as present)"
    return [
        "## Data",
        "",
        "| | |",
        "|---|---|",
        f"| file | `{source}` |",
        f"| items | {data['n_items']:,} |",
        f"| annotators | {data['n_annotators']} |",
        f"| labels | {', '.join(data['labels'])} ({len(data['labels'])}) |",
        f"| ratings | {data['n_ratings']:,} ({data['ratings_per_question']:.2f} per item and label) |",
        f"| values | {values} |",
        "",
    ]


def _agreement_section(agreement: Mapping[str, Any], level: str, n_bootstrap: int) -> list[str]:
    notes = Footnotes()
    rows = agreement_rows(agreement, notes)
    intervals = (
        f"with 95 % percentile bootstrap intervals over {n_bootstrap:,} resamples of the items"
        if n_bootstrap > 0
        else "without intervals (no bootstrap)"
    )
    lines = [
        "## Agreement",
        "",
        f"Krippendorff's alpha ({level}), Fleiss' kappa, the mean pairwise Cohen's kappa"
        f"{' (quadratic weights)' if level != 'nominal' else ''} and the interrater correlation of GoEmotions "
        f"(Demszky et al. 2020: Spearman correlation of each annotator with the mean of the others), {intervals}. "
        '"All labels" pools every (item, label) question as one unit.',
        "",
        "| | " + " | ".join(STATISTIC_NAMES.values()) + " | items | annotators |",
        "|---|" + "---:|" * (len(STATISTIC_NAMES) + 2),
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
    ]
    if notes.reasons:
        lines += ["n/a: " + "; ".join(notes.lines()) + ".", ""]
    return [*lines, "![Krippendorff's alpha per label](agreement.png)", ""]


def _aggregation_section(aggregation: Aggregation) -> list[str]:
    summary = aggregation_summary(aggregation)
    method = METHOD_NAMES.get(aggregation.method, aggregation.method)
    if aggregation.min_confidence is None:
        cut = "No confidence cut was applied."
    else:
        cut = (
            f"An item passes when every one of its label questions has a confidence of at least "
            f"{aggregation.min_confidence:g}: {summary['n_passing']:,} of {summary['n_items']:,} items "
            f"({summary['share_passing']:.1%}) pass."
        )
    return [
        "## Aggregation",
        "",
        f"Each (item, label) question aggregated with {method}, fitted with crowd-kit, one model per label. {cut}",
        "",
        "| label | items with the label | passing items with the label |",
        "|---|---:|---:|",
        *(
            f"| {label} | {counts['all']:,} | {counts['passing']:,} |"
            for label, counts in summary["label_counts"].items()
        ),
        "",
    ]


def _comparison_section(comparison: Mapping[str, Any], gold: Sequence[str]) -> list[str]:
    files = ", ".join(f"`{name}`" for name in gold)
    kappa = Footnotes()
    rows = [
        f"| {label} | {s['gold_label']} | {s['n']:,} | "
        + (f"{s['cohen_kappa']:.3f}" if s["cohen_kappa"] is not None else f"n/a {kappa.mark('one value only')}")
        + f" | {s['accuracy']:.3f} | {s['f1']:.3f} |"
        for label, s in comparison["per_label"].items()
    ]
    lines = [
        "## Comparison with released labels",
        "",
        f"Gold: {files}, joined on {comparison['joined_on']}: {comparison['n_matched']:,} of "
        f"{comparison['n_items']:,} aggregated items matched ({describe_left_out(comparison)}); "
        f"the whole label set agrees on {comparison['exact_match']:.1%} of them. F1 is of presence, gold as truth.",
        "",
        "| label | gold column | n | Cohen's kappa | accuracy | F1 |",
        "|---|---|---:|---:|---:|---:|",
        *rows,
        "",
    ]
    if kappa.reasons:
        lines += ["n/a: " + "; ".join(kappa.lines()) + ".", ""]
    return lines


def agreement_chart(agreement: Mapping[str, Any], level: str) -> bytes:
    """A PNG bar chart of Krippendorff's alpha per label with its 95 % interval as error bars, the pooled alpha
    as a dashed line; a label whose alpha is undefined gets no bar and an "n/a"."""
    figure_class, canvas_class = _import_matplotlib()
    per_label = agreement["per_label"]
    labels = list(per_label)
    figure = figure_class(figsize=(max(4.0, 0.9 * len(labels) + 1.5), 3.6), dpi=150)
    canvas_class(figure)
    axes = figure.add_subplot()
    lowest = 0.0
    for x, label in enumerate(labels):
        block = per_label[label]
        alpha, interval = block["krippendorff_alpha"], block["krippendorff_alpha_ci95"]
        if alpha is None:
            axes.text(x, 0.02, "n/a", ha="center", va="bottom", fontsize=8)
            continue
        error = None if interval is None else [[alpha - interval[0]], [interval[1] - alpha]]
        axes.bar(x, alpha, color="#4c72b0", yerr=error, capsize=4)
        lowest = min(lowest, alpha if interval is None else interval[0])
    overall = agreement["overall"]["krippendorff_alpha"]
    if overall is not None:
        axes.axhline(overall, color="#dd8452", linestyle="--", linewidth=1, label=f"all labels: {overall:.3f}")
        axes.legend(loc="upper right", fontsize=8, frameon=False)
    axes.axhline(0, color="black", linewidth=0.6)
    slanted = len(labels) > 6
    axes.set_xticks(range(len(labels)), labels, rotation=30 if slanted else 0, ha="right" if slanted else "center")
    axes.set_ylim(lowest - 0.05, 1.0)
    axes.set_ylabel(f"Krippendorff's alpha ({level})")
    if any(per_label[label]["krippendorff_alpha_ci95"] for label in labels):
        axes.set_title("Error bars: 95 % bootstrap interval", fontsize=9)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _import_matplotlib() -> tuple[Any, Any]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("the report's chart needs matplotlib: install affectlab[annotate]") from None
    return Figure, FigureCanvasAgg
