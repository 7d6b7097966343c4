"""Speed of ``detect --input`` after the batch is prepared once (issue 31), side by side in one run over the same
10,000 real texts (the speed.py mix: test splits of five datasets, at most 280 characters):

* ``affectlab detect --input FILE --output OUT`` for this checkout and for an earlier commit (``--before``, the
  tree the issue measured at 0.70x), each a whole new process (start-up, loading, language identification, the
  heads, writing the file), timed by wall clock with its peak RSS, three times each (the median counts);
* two references, each timed before, between and after the ``detect`` runs (the median of the runs counts):
  the bare per-row int8 graph ``detect`` runs (the shipped ``e5_affect/model.int8.onnx``), and the bare
  per-tensor int8 graph of the same weights a user could pick instead (``--per-tensor-graph``: the shipped graph
  before issue 22, ``git show 7df7b07:src/affectlab/encoders/e5_affect/model.int8.onnx``), both over
  length-sorted batches of 32 of the pre-tokenised texts, the word rows looked up before timing, only
  ``session.run`` timed;
* cold start of ``affectlab detect TEXT --json`` (median of five new processes) and peak RSS, for both trees.

    git show 7df7b07:src/affectlab/encoders/e5_affect/model.int8.onnx > /tmp/per_tensor.onnx
    python benchmarks/speed/batch_speed.py --data-dir ../shared/data --per-tensor-graph /tmp/per_tensor.onnx \
        [--before fb22afd]

Writes ``benchmarks/results/batch_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from affectlab.model_package import shipped_path
from default_encoder_speed import bare_encoder, cold_start, run_detect_file, run_header, texts_and_trees
from speed import tweet_texts

PER_ROW_GRAPH = shipped_path("e5_affect/model.int8.onnx")
ROUNDS = 3


def one_round(
    graphs: dict[str, Path], texts: list[str], trees: dict[str, Path], texts_file: Path, work: Path
) -> tuple[dict[str, list[dict]], dict[str, dict]]:
    """The references, then each tree's ``detect --input`` into a new output (the references are timed again after
    the last round)."""
    bare = {name: [bare_encoder(graph, texts)] for name, graph in graphs.items()}
    detect = {}
    for name, src in trees.items():
        out = work / "out.jsonl"
        out.unlink(missing_ok=True)
        detect[name] = run_detect_file(src, texts_file, out)
    return bare, detect


def measure(graphs: dict[str, Path], texts: list[str], trees: dict[str, Path], texts_file: Path, work: Path) -> dict:
    """``ROUNDS`` rounds of references and ``detect`` runs, the references once more at the end; medians."""
    bare_runs: dict[str, list[dict]] = {name: [] for name in graphs}
    detect_runs: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(ROUNDS):
        bare, detect = one_round(graphs, texts, trees, texts_file, work)
        for name, runs in bare.items():
            bare_runs[name] += runs
        for name, run in detect.items():
            detect_runs[name].append(run)
    for name, graph in graphs.items():
        bare_runs[name].append(bare_encoder(graph, texts))
    median = {name: statistics.median(run["texts_per_s"] for run in runs) for name, runs in bare_runs.items()}
    detect_median = {name: statistics.median(run["texts_per_s"] for run in runs) for name, runs in detect_runs.items()}
    ratios = {
        tree: {graph: round(speed / median[graph], 3) for graph in graphs} for tree, speed in detect_median.items()
    }
    return {"bare_runs": bare_runs, "bare_median_texts_per_s": median, "detect_runs": detect_runs,
            "detect_median_texts_per_s": detect_median, "detect_vs_bare": ratios}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--per-tensor-graph", required=True, help="the per-tensor int8 graph (see the docstring)")
    parser.add_argument("--before", default="fb22afd", help="the commit to compare with (issue 31 measured 0.70x)")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "batch_speed.json"))
    args = parser.parse_args()
    texts = tweet_texts(args.data_dir, args.n)
    graphs = {"per-row int8 (the graph detect runs)": PER_ROW_GRAPH, "per-tensor int8": Path(args.per_tensor_graph)}
    with texts_and_trees(texts, args.before) as (work, texts_file, trees):
        result = {
            **run_header(texts),
            **measure(graphs, texts, trees, texts_file, work),
            "cold_start": {name: cold_start(src) for name, src in trees.items()},
        }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({key: result[key] for key in ("detect_median_texts_per_s", "bare_median_texts_per_s",
                                                    "detect_vs_bare")}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
