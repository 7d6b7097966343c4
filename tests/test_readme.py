"""The README runs (issue 41, part 6), and so do the pages of ``docs/`` (issue 54): each file's code blocks, in order,
in one folder, as a reader would run them.

Every fenced block of README.md is run in turn in one working folder, so a file one block writes is there for the
next: ``bash`` blocks with bash (stopping at the first command that fails), ``console`` blocks' ``$`` commands with
bash, their output compared with the lines shown under them (``...`` stands for the rest), and ``python`` blocks with
this Python. Each page of ``docs/`` is run the same way in a folder of its own, so a page holds a whole walk and runs
alone (but DESIGN.md, whose one block is the layout map that ``tests/test_layout.py`` reads). The folder has a
``shared/data`` beside it that leads to the real data, so a page's ``../shared/data`` resolves as it does from the
root of a checkout with ``shared/`` beside it (here and in CI); ``AFFECTLAB_DATA_DIR`` points there too, since a
command without ``--data-dir`` would download its dataset and CI has no internet.

What the pages ask a reader to bring (``tweets.csv``, ``letter.txt``, ...) is written first, from slices of the
real data (:func:`write_reader_files`). The two rules the README states in its first comment are kept here:

* a block right after ``<!-- not run by tests/test_readme.py: WHY -->`` is not run (WHY must be given);
* ``python -m pip install ... &&`` is not run and what follows it is (CI installed ``.[dev]``, which holds every
  extra), and ``affectlab serve`` is started in the background, waited for and stopped when its block ends.

It takes minutes (it trains and evaluates on real datasets), hence the ``slow`` mark.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted(page for page in (ROOT / "docs").glob("*.md") if page.name != "DESIGN.md")]
NOT_RUN = re.compile(r"<!-- not run by tests/test_readme\.py: (?P<why>.+?) -->")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
HEADING = re.compile(r"^#+ (?P<title>.+)$", re.MULTILINE)
SHELLS = {"bash", "sh", "shell", "console"}
INSTALL = re.compile(r"^python -m pip install [^&\n]*&& ", re.MULTILINE)
SERVE = re.compile(
    r"^(?P<command>affectlab (?:annotate serve \S+|serve) --port (?P<port>\d+)[^#\n]*)(#.*)?$", re.MULTILINE
)
EMOTIONS = ("anger", "disgust", "fear", "joy", "sadness", "surprise")
BLOCK_SECONDS = 900  # a block still running then is stopped and fails the test: generous, for CI's shared cores


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page: where it starts, its language, its text and, when it is not run, why."""

    page: str
    line: int
    lang: str
    body: str
    not_run: str | None


def page_name(page: Path) -> str:
    """A page as its path from the root of the checkout (``README.md``, ``docs/collection.md``)."""
    return page.relative_to(ROOT).as_posix()


def page_blocks(page: Path) -> list[Block]:
    """A page's fenced code blocks in order, each with the reason of a ``not run`` marker on the line above."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        above = text[: match.start()].rstrip("\n").rpartition("\n")[2]
        marker = NOT_RUN.fullmatch(above.strip())
        line = text.count("\n", 0, match.start()) + 1
        blocks.append(Block(page_name(page), line, match["lang"], match["body"], marker["why"] if marker else None))
    return blocks


def console_steps(body: str) -> list[tuple[str, list[str]]]:
    """A ``console`` block as (command, the output lines shown under it) pairs."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
    return steps


def shell_script(body: str) -> str:
    """A ``bash`` block as the script this test runs: installs dropped, a server started in the background and
    stopped at the end, the first failing command named."""
    script = INSTALL.sub("", body)
    script = SERVE.sub(_serve_in_background, script)
    return "set -eo pipefail\ntrap 'echo \"failed: $BASH_COMMAND\" >&2' ERR\n" + script


def _serve_in_background(match: re.Match[str]) -> str:
    url = f"http://127.0.0.1:{match['port']}/healthz"
    return (
        f"{match['command'].rstrip()} &\n"
        "server=$!; trap 'kill $server' EXIT\n"
        f"until curl -sf {url} >/dev/null; do kill -0 $server; sleep 0.5; done"
    )


def write_reader_files(folder: Path, data: Path) -> None:
    """The files the examples of the README and docs/ take as the reader's own, made from slices of the real data."""
    tweets = pd.read_csv(data / "semeval2025_task11" / "track_a" / "dev" / "eng.csv").text
    pd.DataFrame({"tweet": tweets[:20]}).to_csv(folder / "tweets.csv", index=False)
    (folder / "letter.txt").write_text(" ".join(tweets[20:45]) + "\n", encoding="utf-8")
    ukrainian = pd.read_csv(data / "semeval2025_task11" / "track_a" / "dev" / "ukr.csv")[:40]
    emotions = [",".join(e for e in EMOTIONS if row[e]) or "none" for _, row in ukrainian.iterrows()]
    pd.DataFrame({"text": ukrainian.text, "emotions": emotions}).to_csv(folder / "my_comments.csv", index=False)
    (folder / "my_states.txt").write_text("# the states I use\nheartbroken\ngutted\n", encoding="utf-8")
    stories = pd.read_csv(data / "eval_ua_tion" / "UA-CBT" / "artifacts" / "stories" / "few_shot_split.csv")
    (folder / "stories").mkdir()
    (folder / "stories" / "story.txt").write_text(stories.fixed_story[0], encoding="utf-8")
    articles = pd.read_csv(data / "eval_ua_tion" / "UP-Titles" / "artifacts" / "up_titles_15000-20-ukr.csv")
    table = {"title": articles.ukr_title, "text": articles.ukr_text, "tags": articles.tags}
    pd.DataFrame(table).to_csv(folder / "articles.csv", index=False)
    (folder / "reddit_dump.jsonl").write_text(reddit_dump(), encoding="utf-8")
    (folder / "comments").mkdir()
    pd.DataFrame({"text": ukrainian.text[:20]}).to_csv(folder / "comments" / "monday.csv", index=False)
    pd.DataFrame({"text": tweets[45:65]}).to_parquet(folder / "comments" / "tuesday.parquet", index=False)


def reddit_dump() -> str:
    """Posts in a Reddit dump's shape with "I feel X and Y" in them: rare in every corpus here (see
    :mod:`affectlab.openstates.collect.recipe`), as common as MASIVE needs in a real dump."""
    seeds = ["happy", "sad", "angry", "surprised", "disgusted", "afraid"]
    states = (
        "lonely tired anxious hopeful grateful excited nervous confused frustrated proud relieved guilty ashamed "
        "jealous bored calm overwhelmed hopeless numb exhausted betrayed embarrassed insecure inspired motivated "
        "curious nostalgic restless helpless worried stressed heartbroken blessed loved useless free safe scared"
    ).split()
    pairs = [(first, then) for first in seeds + states[:12] for then in states if first != then]
    posts = [
        {"title": f"day {i}", "selftext": f"Some days I feel {a} and {b} at once."} for i, (a, b) in enumerate(pairs)
    ]
    return "".join(json.dumps(post) + "\n" for post in posts)


def run_block(block: Block, folder: Path, env: dict[str, str]) -> None:
    """Run one block in ``folder``; fail naming its page and line, the command and what it printed."""
    if block.lang == "console":
        for command, shown in console_steps(block.body):
            output = _run(block, ["bash", "-o", "pipefail", "-c", command], folder, env)
            _assert_shown(block, command, shown, output.splitlines())
    elif block.lang in SHELLS:
        _run(block, ["bash", "-c", shell_script(block.body)], folder, env)
    elif block.lang == "python":
        _run(block, [sys.executable, "-c", block.body], folder, env)
    else:
        pytest.fail(f"{block.page} line {block.line}: a ```{block.lang} block; mark it or teach this test its language")


def _run(block: Block, command: list[str], folder: Path, env: dict[str, str]) -> str:
    """Run ``command`` in a process group of its own, so that a server it started is stopped with it on a timeout."""
    started, cpu = time.monotonic(), _children_cpu_seconds()
    process = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=BLOCK_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    seconds, cpu = time.monotonic() - started, _children_cpu_seconds() - cpu
    print(f"{block.page} line {block.line} ({block.lang}): {seconds:.1f} s, {cpu:.1f} s of CPU")
    if process.returncode != 0:
        pytest.fail(
            f"{block.page} line {block.line}: exit code {process.returncode}\n"
            f"--- stdout (end)\n{stdout[-3000:]}\n--- stderr (end)\n{stderr[-3000:]}"
        )
    return stdout


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _assert_shown(block: Block, command: str, shown: list[str], printed: list[str]) -> None:
    """The output a console block shows is what the command prints; ``...`` stands for the lines after it."""
    stripped = [line.strip() for line in shown]
    cut = stripped.index("...") if "..." in stripped else None
    expected, actual = shown[:cut], [line.rstrip() for line in printed]
    if cut is not None:
        actual = actual[:cut]
    assert actual == expected, f"{block.page} line {block.line}: `{command}` printed\n" + "\n".join(printed)


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_not_run_markers_give_a_reason_and_precede_a_block(page: Path) -> None:
    markers = [match["why"].strip() for match in NOT_RUN.finditer(page.read_text(encoding="utf-8"))]
    marked = [block.not_run for block in page_blocks(page) if block.not_run]
    assert all(markers), "a `not run` marker without a reason"
    assert len(marked) == len(markers), "a `not run` marker that is not on the line right above a code block"


def anchors(page: Path) -> set[str]:
    """A page's headings as GitHub names their anchors: lower case, punctuation but hyphens dropped, spaces hyphens."""
    titles = HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))
    return {re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-") for title in titles}


@pytest.mark.parametrize("page", sorted({*PAGES, *(ROOT / "docs").glob("*.md")}), ids=page_name)
def test_links_lead_to_a_file_and_heading(page: Path) -> None:
    for match in LINK.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        path, _, anchor = match["target"].partition("#")
        if "://" in path:
            continue
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{page_name(page)}: {match['target']} leads to no file"
        assert not anchor or anchor in anchors(target), f"{page_name(page)}: {match['target']} leads to no heading"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_page_code_blocks_run_in_order(page: Path, tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(data_dir, target_is_directory=True)
    folder = tmp_path / "reader"
    folder.mkdir()
    write_reader_files(folder, data_dir)
    bin_dir = str(Path(sys.executable).parent)  # `affectlab` and `python` of the environment running the tests
    env = {**os.environ, "AFFECTLAB_DATA_DIR": str(tmp_path / "shared" / "data")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    for block in page_blocks(page):
        if block.not_run is None:
            run_block(block, folder, env)
