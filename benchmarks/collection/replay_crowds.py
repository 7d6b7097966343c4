"""Replay six released crowds through the running collection service (issue 44): the per-annotator labels of
SemEval-2025 Task 11 (BRIGHTER) for Ukrainian, Afrikaans, Algerian Arabic, Hindi, Marathi and Romanian.

Each annotator column becomes a simulated annotator with an invite of its own, who answers over HTTP (a real
uvicorn server on 127.0.0.1) the ratings its column gives each text and skips the texts it never rated; all of them
work at once, in threads. Then the export's answers are read back and compared with the source file read directly:
every agreement statistic (point values, at the file's level, and Krippendorff's alpha on presence, the figure
usually quoted: 0.4588 for Ukrainian), and Dawid-Skene's labels per text on presence (``--binarize``), the same
functions ``annotate agreement`` and ``annotate aggregate`` run.

    python benchmarks/collection/replay_crowds.py --data-dir ../shared/data [--limit N] \
        [--out benchmarks/results/replay_crowds.json]

Prints each language's JSON line; ``--out`` writes them all (recorded:
``benchmarks/results/replay_crowds_issue*.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import pandas as pd

from affectlab.annotation.aggregation import aggregate
from affectlab.annotation.agreement import agreement_report, krippendorff_alpha
from affectlab.annotation.readers import Annotations, binarize, read_long, read_wide
from affectlab.collection.app import create_app
from affectlab.collection.creation import create_project
from affectlab.collection.crowd import replay_members, replay_protocol_text, work
from affectlab.collection.export import export_project
from affectlab.collection.log import Item

sys.path.insert(0, str(Path(__file__).parents[2] / "tests"))
from serving import running

BASE = "semeval2025_task11/individual_labels"
SOURCES = {  # language -> file, item column, text column, annotator columns (None: those named Annotator*)
    "ukr": ("ukr/ukr_individuals.csv", "text_id", "text", None),
    "afr": ("afr/afr_individuals.csv", "text_content", "text_content", ["annotator_1", "annotator_2", "annotator_3"]),
    "arq": ("arq/arq_individuals.csv", "text_id", "text", None),
    "hin": ("hin/hin_test_individuals.csv", "text_id", "text", None),
    "mar": ("mar/mar_all_test_individuals.csv", "text_id", "text", None),
    "ron": ("ron/ron_individuals.csv", "text", "text", None),
}
STATISTICS = ("krippendorff_alpha", "fleiss_kappa", "cohen_kappa_mean", "interrater_correlation")


def read_source(data: Path, lang: str, limit: int | None) -> Annotations:
    """The released ratings of ``lang`` (the first ``limit`` texts when given)."""
    path, item_col, text_col, columns = SOURCES[lang]
    table = pd.read_csv(data / BASE / path, keep_default_na=False, na_values=[""])
    if limit is not None:
        keep = table[item_col].drop_duplicates()[:limit]
        table = table[table[item_col].isin(keep)]
    return read_wide(table, item_col, "emotion", columns, text_col, name=path)


def replay(source: Annotations, lang: str) -> tuple[Annotations, dict]:
    """The source's ratings answered through the service; the export's answers as annotations, and timings."""
    frame = source.frame
    per_item = int(frame.groupby("item")["annotator"].nunique().max())
    levels = int(frame["value"].max())
    text = replay_protocol_text(f"replay-{lang}", source.labels, max(levels, 1), per_item)
    items = [Item(str(item), source.texts[item]) for item in source.items]
    folder = Path(tempfile.mkdtemp())
    project, _ = create_project(str(folder / "project.sqlite"), text, items, {})
    members = replay_members(source, project.invite)
    started = time.perf_counter()
    with running(create_app(project, rate=1e6, burst=1e6)) as url:
        threads = []
        for member in members:
            client = httpx.Client(base_url=url, timeout=60)
            threads.append(threading.Thread(target=work, args=(client, member, "all")))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    seconds = time.perf_counter() - started
    export_project(project, folder / "export")
    answers = pd.read_csv(folder / "export" / "answers-all.csv").dropna(subset=["value"])
    back = read_long(answers, value_col="value", labels=source.labels, level=source.level)
    latencies = np.array([lat for member in members for _, lat in member.latencies]) * 1000
    timing = {"seconds": round(seconds, 1), "requests": len(latencies),
              "p95_ms": round(float(np.percentile(latencies, 95)), 1)}  # fmt: skip
    return back, timing


def compare(source: Annotations, back: Annotations) -> dict:
    """Agreement point values of both, and how many texts' Dawid-Skene labels (presence) differ."""
    ours, theirs = (agreement_report(a, n_bootstrap=0)["overall"] for a in (back, source))
    stats = {name: {"source": theirs[name], "export": ours[name]} for name in STATISTICS}
    presence = [krippendorff_alpha(binarize(a).matrix(), "nominal") for a in (source, back)]
    stats["krippendorff_alpha_presence"] = {"source": presence[0], "export": presence[1]}  # ukr: 0.4588
    offline = aggregate(binarize(source), "dawid-skene").items.set_index("item")["labels"]
    online = aggregate(binarize(back), "dawid-skene").items.set_index("item")["labels"]
    differ = int(sum(offline[item] != online.get(str(item)) for item in offline.index))
    ratings_equal = _ratings(source).equals(_ratings(back))
    return {"statistics": stats, "texts": len(offline), "aggregation_differs": differ,
            "ratings_equal": bool(ratings_equal)}  # fmt: skip


def _ratings(annotations: Annotations) -> pd.Series:
    """Each text's multiset of (label, value) ratings, annotators aside (the export names them by pseudonym)."""
    frame = annotations.frame.assign(item=annotations.frame["item"].astype(str))
    return (
        frame.groupby("item")[["label", "value"]]
        .apply(lambda rows: tuple(sorted(zip(rows["label"], rows["value"], strict=True))))
        .sort_index()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None, help="Replay only the first N texts of each crowd.")
    parser.add_argument("--langs", default=",".join(SOURCES))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    results = {}
    for lang in args.langs.split(","):
        source = read_source(args.data_dir, lang, args.limit)
        back, timing = replay(source, lang)
        results[lang] = {**compare(source, back), **timing, "annotators": len(source.annotators)}
        print(lang, json.dumps(results[lang]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
