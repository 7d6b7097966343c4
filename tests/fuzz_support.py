"""Hypothesis strategies and properties for fuzzing every CLI path that reads a user's file.

Shared by ``tests/test_fuzz_readers.py`` (a few dozen examples per reader, in CI) and
``benchmarks/robustness/fuzz_readers.py`` (thousands). Each ``check_*`` function writes one generated file into a fresh
directory, runs the command in-process through :func:`affectlab.cli.main` (what the ``affectlab`` script runs, so
input errors become exit code 2 exactly as in a shell) and asserts the house rules:

* the command exits 0 or 2 and never escapes with an exception (which a shell would show as a traceback);
* exit 2 prints exactly one ``error:`` line, the last line on stderr, with no line break inside it;
* exit 0 writes one output row per input row, in input order (ids checked where the format has them);
* a failed run leaves no output that looks complete: no output at all, or, for the resumable CSV, TSV and JSON
  Lines outputs of ``detect``, an output holding whole batches together with the ``<output>.progress.json``
  sidecar that marks it unfinished (the design documented in :mod:`affectlab.scale.batch`); Parquet outputs,
  and every output of ``score``, ``annotate aggregate`` and ``ua eval --predictions``, appear whole or not at all.

Generated content covers arbitrary Unicode (NUL, lone surrogates written as invalid UTF-8 bytes or as JSON
escapes), a UTF-8 byte-order mark, CRLF line ends, quoted line breaks, 200,000-character lines, empty files,
wrong JSON types, missing columns and corrupted bytes. Where the generator knows the answer, the property is
stronger: a clean file must be accepted (``must_succeed``) and a file that cannot be read must be refused
(``must_fail``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

from affectlab.cli import main
from affectlab.io.resume import FOLDER_RECORD

BOM = "\ufeff"
LONG = 200_000  # characters in a "very long line"
SNIFF_BYTES = 64 * 1024  # how much of a text file detect/score check for NUL bytes before writing anything
DELIMITERS = {".csv": ",", ".tsv": "\t"}
LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # breaks a terminal or an editor may show inside a "line"
LONGEST_ERROR_LINE = 1200  # characters: a message quoting a huge cell must still be readable

# ---- running the command line like the real script ----------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What a shell would see: the exit code, stdout, stderr, and the exception that would have been a traceback."""

    code: int | None
    out: str
    err: str
    exception: BaseException | None


def invoke(args: list[Any]) -> Outcome:
    """Run ``affectlab ARGS`` in-process with stdout and stderr set up as in a real UTF-8 process (stdout strict,
    stderr ``backslashreplace``), so that text a process could not print fails here too."""
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="backslashreplace", write_through=True)
    code, exception = None, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(arg) for arg in args])
        except SystemExit as exc:  # a clean exit: no traceback
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # a shell would print a traceback
            exception = exc
    return Outcome(
        code, out_bytes.getvalue().decode("utf-8", "replace"), err_bytes.getvalue().decode("utf-8"), exception
    )


def check_exit(outcome: Outcome) -> None:
    """Exit 0, or exit 2 with one error line; never a traceback."""
    if outcome.exception is not None:
        raise AssertionError(f"traceback: {type(outcome.exception).__name__}: {outcome.exception!s:.500}")
    assert "Traceback" not in outcome.out + outcome.err, outcome.err[-2000:]
    assert outcome.code in (0, 2), f"exit code {outcome.code}; stderr: {outcome.err[-1000:]!r}"
    if outcome.code == 2:
        lines = outcome.err.rstrip("\n").split("\n")
        errors = [line for line in lines if line.startswith("error: ")]
        assert len(errors) == 1 and lines[-1] == errors[0], f"not one error line at the end: {outcome.err[-1000:]!r}"
        broken = [char for char in errors[0] if char in LINE_BREAKS]
        assert not broken, f"line break {broken[0]!r} inside the error line {errors[0][:300]!r}"
        assert len(errors[0]) <= LONGEST_ERROR_LINE, f"an error line of {len(errors[0]):,} characters"


# ---- text ---------------------------------------------------------------------------------------------------------

SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
SPECIAL_CHARS = "\r\n\t\",'\\\ufeff\u2028\x85\x1c\x1b "
CHARS = st.one_of(
    st.characters(codec="utf-8", exclude_characters="\0"),  # any code point but NUL and surrogates
    st.characters(max_codepoint=0x7F, exclude_characters="\0"),
    st.sampled_from(SPECIAL_CHARS),
    st.sampled_from("радістьщастяÑñ😀"),
)
ODD_CHARS = st.one_of(CHARS, SURROGATES, st.just("\0"))
SPECIAL_TEXTS = (
    "",
    " ",
    "\t \u3000",
    "\0",
    "\r\n",
    "\n",
    "\r",
    '"',
    '""',
    "a,b",
    "a\tb",
    BOM,
    "\u2028",
    "\x85",
    "\ud800",  # lone high surrogate
    "x\udfffy",  # lone low surrogate
    "\ud83d\ude00",  # a pair written as two code points: CESU-8, not UTF-8
    "😀",
    "I am so happy today!",
    "Мені дуже страшно",
    "¡Qué alegría!",
    "NaN",
    "null",
    "[1, 2]",
)


def _long(chunk: str) -> str:
    return (chunk * (LONG // len(chunk) + 1))[:LONG]


def _odd(text: str) -> bool:
    return "\0" in text or _has_surrogate(text)


def texts(odd: bool = True) -> st.SearchStrategy[str]:
    """Arbitrary text: short random strings, awkward special cases, and the occasional 200,000-character line;
    ``odd``: NUL and lone surrogates too."""
    chars = ODD_CHARS if odd else CHARS
    special = SPECIAL_TEXTS if odd else tuple(t for t in SPECIAL_TEXTS if not _odd(t))
    return st.one_of(
        st.text(chars, max_size=12),
        st.text(CHARS, max_size=30),
        st.sampled_from(special),
        st.builds(_long, st.text(chars, min_size=1, max_size=3)),
    )


def broken_text(draw: st.DrawFn) -> bool:
    """Whether a file may hold NUL and lone surrogates (one file in five): a single lone surrogate makes a whole
    file unreadable, and NUL in its first 64 KiB makes detect and score take it for binary."""
    return draw(st.integers(0, 4)) == 0


def column_names(odd: bool = True) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["id", "text", "Text", "text ", "lang", "label", "", "labels", "error", "score_joy", "a\nb"]),
        st.text(ODD_CHARS if odd else CHARS, max_size=6),
    )


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


def _encode(text: str) -> bytes:
    """UTF-8, except that lone surrogates become the invalid bytes ``surrogatepass`` writes."""
    return text.encode("utf-8", "surrogatepass")


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# ---- damaging a file ----------------------------------------------------------------------------------------------


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> tuple[bytes, bool]:
    """``data`` unchanged (most of the time) or damaged; returns the bytes and whether they were damaged."""
    kind = draw(st.sampled_from(["none"] * 10 + ["truncate", "insert", "garbage", "empty", "bom"]))
    if kind == "none":
        return data, False
    if kind == "empty":
        return b"", True
    if kind == "bom":
        return BOM.encode() + data, True
    if kind == "garbage":
        return draw(st.binary(max_size=300)), True
    position = draw(st.integers(0, len(data)))
    if kind == "truncate":
        return data[:position], True
    insert = draw(st.one_of(st.binary(min_size=1, max_size=8), st.sampled_from([b"\xff", b"\0", b"\xed\xa0\x80"])))
    return data[:position] + insert + data[position:], True


# ---- file cases ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileCase:
    """A generated input file and what is known about it."""

    suffix: str
    data: bytes
    ids: tuple[str, ...] | None = None  # the "id" of each row in order, when the file is as generated
    texts: tuple[str, ...] | None = None  # the text of each row (plain text files, as generated)
    must_succeed: bool = False  # a clean file that every reader must accept
    must_fail: bool = False  # a file no reader may accept
    options: tuple[str, ...] = ()  # extra command-line options the case needs
    extra: dict[str, Any] = field(default_factory=dict)  # what a particular property needs to know
    damaged: bool = False  # bytes changed after generation: only the weak properties hold

    def __repr__(self) -> str:  # hypothesis prints failing cases: keep them readable
        shown = self.data[:300] + (b"..." if len(self.data) > 300 else b"")
        return (
            f"FileCase(suffix={self.suffix!r}, {len(self.data)} bytes: {shown!r}, ids={self.ids!r:.200}, "
            f"must_succeed={self.must_succeed}, must_fail={self.must_fail}, damaged={self.damaged}, "
            f"options={self.options}, extra={self.extra!r:.300})"
        )


def _finish(draw: st.DrawFn, case: FileCase, text_format: bool = True) -> FileCase:
    """Maybe damage the file, and work out what must happen from its final bytes."""
    data, hurt = draw(damaged(case.data))
    must_fail = case.must_fail and not hurt
    if text_format and (not is_utf8(data) or b"\0" in data[:SNIFF_BYTES]):
        must_fail = True
    must_succeed = case.must_succeed and not hurt and not must_fail
    ids, texts = (None, None) if hurt else (case.ids, case.texts)
    return replace(case, data=data, ids=ids, texts=texts, must_succeed=must_succeed, must_fail=must_fail, damaged=hurt)


def _header(draw: st.DrawFn, text_col: bool, odd: bool) -> list[str]:
    names = ["id", *(["text"] if text_col else []), *draw(st.lists(column_names(odd), max_size=3))]
    return draw(st.permutations(names))


def _clean_names(names: list[str]) -> bool:
    """Column names every reader must accept: distinct, none the output adds (``detect --input`` adds ``lang``,
    ``supported`` and ``notes`` too; ``scale/batch.py`` lists them), no BOM to be stripped."""
    added = ("labels", "error", "lang", "supported", "notes")
    return len(set(names)) == len(names) and not any(
        name in added or name.startswith(("score_", "intensity_")) or BOM in name for name in names
    )


@st.composite
def delimited_cases(draw: st.DrawFn, suffix: str) -> FileCase:
    """CSV or TSV: a header with ``id`` and usually ``text``, rows of arbitrary cells, some rows ragged."""
    has_text = draw(st.integers(0, 9)) > 0
    broken = broken_text(draw)
    names = _header(draw, has_text, broken)
    rows = []
    ragged = short = False
    for number in range(draw(st.integers(0, 8))):
        row = [f"r{number}" if name == "id" else draw(texts(broken)) for name in names]
        change = draw(st.sampled_from(["keep"] * 8 + ["short", "long"]))
        if change == "short" and len(row) > 1:
            row, ragged = row[:-1], True
            short = True
        elif change == "long":
            row, ragged = [*row, draw(texts(broken))], True
        rows.append(row)
    terminator = draw(st.sampled_from(["\r\n", "\n"]))
    quoting = draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=DELIMITERS[suffix], lineterminator=terminator, quoting=quoting)
    writer.writerow(names)
    writer.writerows(rows)
    content = (BOM if draw(st.booleans()) else "") + buffer.getvalue()
    cells = [cell for row in [names, *rows] for cell in row]
    # a lone CR in an unquoted cell is a line break to some readers and not to others: no promise either way
    ambiguous = quoting == csv.QUOTE_MINIMAL and terminator == "\n" and any("\r" in cell for cell in cells)
    must_succeed = has_text and _clean_names(names) and not ambiguous
    ids = None if short else tuple(f"r{n}" for n in range(len(rows)))  # a short row may have lost its id
    case = FileCase(suffix, _encode(content), ids, None, must_succeed,
                    "text" not in names, extra={"ragged": ragged})  # fmt: skip
    return _finish(draw, case)


@st.composite
def txt_cases(draw: st.DrawFn) -> FileCase:
    """Plain text, one text per line; lines hold anything but a line feed."""
    lines = draw(st.lists(texts(broken_text(draw)).map(lambda text: text.replace("\n", " ")), max_size=8))
    terminator = draw(st.sampled_from(["\n", "\r\n"]))
    bom = BOM if draw(st.booleans()) else ""
    content = bom + "".join(line + terminator for line in lines)
    expected = [line.rstrip("\r") for line in lines]  # the reader drops the line end, "\r\n" or "\n"
    if expected and not bom:
        expected[0] = expected[0].removeprefix(BOM)  # a BOM starting the file is no part of the text
    expected = tuple(expected)
    case = FileCase(".txt", _encode(content), None, expected, must_succeed=True)
    return _finish(draw, case)


def json_scalars(odd: bool = False) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts(odd))


def json_values(odd: bool = False) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars, and lists and objects of them."""
    keys = st.text(ODD_CHARS if odd else CHARS, max_size=4)
    return st.recursive(
        json_scalars(odd),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
        max_leaves=6,
    )


JSON_SCALARS = json_scalars()
JSON_VALUES = json_values()
RAW_JSON = (
    "1" * 5000,  # more digits than Python converts to an int by default
    "[" * 5000 + "]" * 5000,  # deeper than the parser's recursion limit
    '"\\ud800"',  # a lone surrogate, escaped: valid JSON, not valid text
    '"a\\udc00b"',
    '"\\ud83d\\ude00"',  # an escaped pair: a proper emoji
    '"\\u0000"',
    "NaN",
    "-Infinity",
    "1e999",
    '"\\u2028"',
)


@st.composite
def jsonl_records(
    draw: st.DrawFn, keys: list[str], number: int, broken: bool, messy: bool
) -> tuple[str, dict[str, Any] | None, bool]:
    """One JSON Lines line: (line, the record it holds or None, whether it is a clean record)."""
    kind = draw(st.sampled_from(["record"] * 8 + ["blank", "scalar", "broken", "raw"] if messy else ["record"]))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t", "\r"])), None, True
    if kind == "scalar":
        value = draw(st.one_of(json_scalars(broken), st.lists(json_scalars(broken), max_size=2)))
        return json.dumps(value), {}, False
    if kind == "broken":
        return (
            draw(st.sampled_from(['{"id": "r1", "text": ', "{", "}", "{'text': 'single quotes'}", "[", "tru"])),
            {},
            False,
        )
    record: dict[str, Any] = {"id": f"r{number}"}
    for key in keys[1:]:
        if draw(st.integers(0, 9)) == 0:
            continue  # a missing field
        if key == "text" and draw(st.integers(0, 3)) > 0:
            record[key] = draw(texts(broken))
        else:
            record[key] = draw(json_values(broken))
    if draw(st.integers(0, 9)) == 0:
        record.setdefault(draw(column_names(broken)), draw(json_values(broken)))  # a field the first may lack
    ensure_ascii = draw(st.booleans())
    line = json.dumps(record, ensure_ascii=ensure_ascii)
    clean = not _has_surrogate(json.dumps(record, ensure_ascii=False))
    if kind == "raw":
        raw = draw(st.sampled_from(RAW_JSON))
        line = line[:-1] + (", " if len(record) else "") + f'"raw": {raw}}}'
        record["raw"] = None
        clean = clean and raw in ('"\\ud83d\\ude00"', '"\\u0000"', "NaN", "-Infinity", "1e999", '"\\u2028"')
    return line, record, clean


@st.composite
def jsonl_cases(draw: st.DrawFn) -> FileCase:
    """JSON Lines: objects with arbitrary values (wrong types, missing and extra fields), blank lines, non-objects,
    broken JSON, huge numbers, deep nesting and escaped lone surrogates."""
    has_text = draw(st.integers(0, 9)) > 0
    broken = broken_text(draw)
    messy = draw(st.booleans())  # else every line is a record
    keys = ["id", *(["text"] if has_text else []), *draw(st.lists(column_names(odd=False), max_size=2))]
    keys = list(dict.fromkeys(keys))  # a JSON object has each key once: "id" stays the row's id
    lines, records, clean = [], [], True
    for number in range(draw(st.integers(0, 8)) if draw(st.integers(0, 9)) == 0 else draw(st.integers(1, 8))):
        line, record, line_clean = draw(jsonl_records(keys, number, broken, messy))
        lines.append(line)
        clean = clean and line_clean
        if record is not None:
            records.append(record)
    terminator = draw(st.sampled_from(["\n", "\r\n"]))
    content = (BOM if draw(st.booleans()) else "") + terminator.join(lines) + (terminator if lines else "")
    not_object = any(record == {} for record in records)
    first = records[0] if records else {}
    adds_fields = any(set(record) - set(first) for record in records)
    must_succeed = clean and bool(records) and "text" in first and _clean_names(list(first))
    must_fail = not_object or not records or "text" not in first
    ids = None if not_object else tuple(record["id"] for record in records)
    case = FileCase(".jsonl", _encode(content), ids, None, must_succeed, must_fail, extra={"adds_fields": adds_fields})
    return _finish(draw, case)


TEXT_TYPES = ("string", "large_string", "int64", "null", "list", "struct", "dictionary", "binary", "bad_utf8")
EXTRA_TYPES = ("float64", "bool", "timestamp", "date", "decimal", "map", "duration", "time", "fixed_binary", "float16")


def _arrow_column(draw: st.DrawFn, kind: str, n: int) -> pa.Array:
    plain = st.one_of(st.none(), texts(odd=False))
    if kind in ("string", "large_string", "dictionary"):
        array = pa.array([draw(plain) for _ in range(n)], pa.large_string() if kind == "large_string" else pa.string())
        return array.dictionary_encode() if kind == "dictionary" else array
    if kind == "bad_utf8":  # a string column whose bytes are not UTF-8 (a broken writer made it)
        values = [draw(st.one_of(st.none(), st.binary(max_size=6), st.just(b"\xff\xfe"))) for _ in range(n)]
        return pa.array(values, pa.binary()).view(pa.string())
    if kind == "binary":
        return pa.array([draw(st.one_of(st.none(), st.binary(max_size=6))) for _ in range(n)], pa.binary())
    if kind == "int64":
        return pa.array([draw(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))) for _ in range(n)], pa.int64())
    if kind == "null":
        return pa.nulls(n)
    if kind == "list":
        return pa.array([draw(st.one_of(st.none(), st.lists(plain, max_size=2))) for _ in range(n)])
    if kind == "struct":
        return pa.array([{"a": draw(plain), "b": draw(st.integers(0, 9))} for _ in range(n)])
    if kind == "float64":
        return pa.array([draw(st.one_of(st.none(), st.floats())) for _ in range(n)], pa.float64())
    if kind == "bool":
        return pa.array([draw(st.one_of(st.none(), st.booleans())) for _ in range(n)], pa.bool_())
    if kind == "timestamp":
        return pa.array([draw(st.integers(-(2**62), 2**62)) for _ in range(n)], pa.int64()).cast(
            pa.timestamp("ns", tz="Europe/Kyiv")
        )
    if kind == "date":
        return pa.array([draw(st.integers(-700_000, 2_000_000)) for _ in range(n)], pa.int32()).cast(pa.date32())
    if kind == "decimal":
        return pa.array([draw(st.decimals(-(10**6), 10**6, places=2)) for _ in range(n)], pa.decimal128(10, 2))
    if kind == "map":
        return pa.array([[("k", draw(st.integers(0, 9)))] for _ in range(n)], pa.map_(pa.string(), pa.int64()))
    if kind == "duration":
        return pa.array([draw(st.integers(-(2**62), 2**62)) for _ in range(n)], pa.duration("us"))
    if kind == "time":
        return pa.array([draw(st.integers(0, 86_399_999_999)) for _ in range(n)], pa.time64("us"))
    if kind == "fixed_binary":
        return pa.array([draw(st.binary(min_size=3, max_size=3)) for _ in range(n)], pa.binary(3))
    import numpy as np

    return pa.array(np.array([draw(st.floats(width=16)) for _ in range(n)], dtype=np.float16), pa.float16())


@st.composite
def parquet_cases(draw: st.DrawFn) -> FileCase:
    """Parquet: an ``id`` column, a ``text`` column of any type (or none), extra columns of many Arrow types."""
    n = draw(st.integers(0, 8))
    text_kind = draw(st.sampled_from(("string",) * 5 + TEXT_TYPES + ("absent",)))
    names = ["id"] + ([] if text_kind == "absent" else ["text"])
    columns = [pa.array([f"r{i}" for i in range(n)], pa.string())]
    if text_kind != "absent":
        columns.append(_arrow_column(draw, text_kind, n))
    kinds = [text_kind]
    for _ in range(draw(st.integers(0, 2))):
        names.append(draw(column_names(odd=False)))
        kinds.append(draw(st.sampled_from(EXTRA_TYPES + TEXT_TYPES)))
        columns.append(_arrow_column(draw, kinds[-1], n))
    order = draw(st.permutations(range(len(names))))
    table = pa.Table.from_arrays([columns[i] for i in order], names=[names[i] for i in order])
    buffer = io.BytesIO()
    pq.write_table(table, buffer, row_group_size=draw(st.sampled_from([2, 1024])))
    must_succeed = text_kind in ("string", "large_string") and "bad_utf8" not in kinds and _clean_names(names)
    case = FileCase(".parquet", buffer.getvalue(), tuple(f"r{i}" for i in range(n)), None, must_succeed,
                    "text" not in names, extra={"types": [str(column.type) for column in columns]})  # fmt: skip
    return _finish(draw, case, text_format=False)


def input_cases(suffix: str) -> st.SearchStrategy[FileCase]:
    """Files of one input format."""
    if suffix in DELIMITERS:
        return delimited_cases(suffix)
    if suffix == ".txt":
        return txt_cases()
    if suffix == ".jsonl":
        return jsonl_cases()
    return parquet_cases()


# ---- reading outputs back -----------------------------------------------------------------------------------------


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a scored output; its text must be strict UTF-8."""
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    text = path.read_bytes().decode("utf-8")
    if path.suffix == ".jsonl":
        lines = text.split("\n")
        assert lines[-1] == "", "the JSON Lines output does not end in a line feed"
        return [json.loads(line) for line in lines[:-1]]
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=DELIMITERS[path.suffix]))


def reference_rows(case: FileCase) -> int | None:
    """How many data rows an independent reading of the file finds (None: it has no clear answer)."""
    if case.suffix == ".parquet":
        try:
            return pq.ParquetFile(io.BytesIO(case.data)).metadata.num_rows
        except Exception:
            return None
    try:
        text = case.data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError:
        return None
    if case.suffix == ".txt":
        return len(text.split("\n")) - (1 if text.endswith("\n") or not text else 0)
    if case.suffix == ".jsonl":
        return sum(bool(line.strip()) for line in text.split("\n"))
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=DELIMITERS[case.suffix]) if row]
    except csv.Error:
        return None
    return len(rows) - 1 if rows else None


def _check_rows(case: FileCase, rows: list[dict[str, Any]]) -> None:
    expected = reference_rows(case)
    if expected is not None:
        assert len(rows) == expected, f"{len(rows)} output rows for {expected} input rows"
    if case.ids is not None:
        assert [row.get("id") for row in rows] == list(case.ids), "rows lost, repeated or out of order"
    if case.texts is not None:
        assert [row.get("text") for row in rows] == list(case.texts), "texts changed"


def _check_expectation(case: FileCase, outcome: Outcome) -> None:
    if case.must_succeed:
        assert outcome.code == 0, f"a clean file was refused: {outcome.err[-500:]!r}"
    if case.must_fail:
        assert outcome.code == 2, "a file that cannot be read was accepted"


def _sidecar(output: Path) -> Path:
    return output.with_name(f"{output.name}.progress.json")


def _parts(output: Path) -> Path:
    return output.with_name(f".{output.name}.parts")


def check_unfinished_output(output: Path) -> None:
    """After a failed run: no output, or (CSV, TSV, JSON Lines) whole batches marked unfinished by the sidecar."""
    if not output.exists():
        return
    assert output.suffix != ".parquet", "a failed run left a Parquet output (it should appear only when complete)"
    sidecar = _sidecar(output)
    assert sidecar.exists(), "a failed run left an output without the .progress.json sidecar: it looks complete"
    saved = json.loads(sidecar.read_text(encoding="utf-8"))
    rows = read_rows(output)
    assert len(rows) == saved["rows_done"], "the sidecar's row count is not the output's"
    # whole batches only; before the first batch the output may hold its header, which a resumed run rewrites
    assert saved["output_bytes"] in (output.stat().st_size, 0), "the output holds a half-written batch"


# ---- properties ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectCase:
    file: FileCase
    output_suffix: str
    batch_size: int


def detect_cases(suffix: str) -> st.SearchStrategy[DetectCase]:
    return st.builds(
        DetectCase,
        input_cases(suffix),
        st.sampled_from([".csv", ".tsv", ".jsonl", ".parquet"]),
        st.sampled_from([1, 3, 1024]),
    ).map(_fixed_columns)


def _fixed_columns(case: DetectCase) -> DetectCase:
    """JSON records that add fields to the first one's can only go to a JSON Lines output."""
    file = case.file
    if file.extra.get("adds_fields") and not file.damaged and case.output_suffix != ".jsonl":
        return replace(case, file=replace(file, must_succeed=False, must_fail=True))
    return case


def check_detect(case: DetectCase, workdir: Path) -> Outcome:
    """``affectlab detect --fast --input FILE --output OUT``."""
    source = workdir / f"in{case.file.suffix}"
    source.write_bytes(case.file.data)
    output = workdir / f"out{case.output_suffix}"
    outcome = invoke(["detect", "--fast", "--input", source, "--output", output, "--batch-size", case.batch_size])
    check_exit(outcome)
    _check_expectation(case.file, outcome)
    left = set(workdir.iterdir()) - {source}
    if outcome.code == 0:
        assert left == {output}, f"left behind: {sorted(p.name for p in left)}"
        _check_rows(case.file, read_rows(output))
    else:
        assert left <= {output, _sidecar(output), _parts(output)}, f"left behind: {sorted(p.name for p in left)}"
        check_unfinished_output(output)
    return outcome


@dataclass(frozen=True)
class ScoreCase:
    file: FileCase
    batch_size: int


def score_cases(suffix: str) -> st.SearchStrategy[ScoreCase]:
    return st.builds(ScoreCase, input_cases(suffix), st.sampled_from([1, 3, 1024]))


def check_score(case: ScoreCase, workdir: Path) -> Outcome:
    """``affectlab score --fast --input FILE --output DIR`` (local engine): DIR/<stem>.parquet."""
    source = workdir / f"in{case.file.suffix}"
    source.write_bytes(case.file.data)
    folder = workdir / "scored"
    outcome = invoke(["score", "--fast", "--input", source, "--output", folder, "--batch-size", case.batch_size,
                      "--json"])  # fmt: skip
    check_exit(outcome)
    _check_expectation(case.file, outcome)
    output = folder / "in.parquet"
    if outcome.code == 0:
        assert sorted(folder.iterdir()) == [folder / FOLDER_RECORD, output], sorted(p.name for p in folder.iterdir())
        rows = read_rows(output)
        _check_rows(case.file, rows)
        assert json.loads(outcome.out)["files"][0]["rows"] == len(rows)
    else:
        assert not output.exists(), "a failed score run left its Parquet output"
        left = set(folder.iterdir()) if folder.exists() else set()
        assert left <= {_sidecar(output), _parts(output)}, sorted(p.name for p in left)
    return outcome


# ---- the user-file dataset loader (affectlab eval --dataset FILE) ---------------------------------------------------

EKMAN = ("anger", "disgust", "fear", "joy", "sadness", "surprise", "none")
LABEL_CELLS = (*EKMAN, "радість", "страх", "Joy", " joy ", "", "joy,fear", "neutral", "happy", "1")
SPLIT_CELLS = ("train", "dev", "test", "validation", "TEST", " test ", "", "holdout")
CLEAN_TEXTS = ("I am so happy today!", "Мені дуже страшно", "¡Qué alegría!", "a,b", 'He said "no"', "x\r\ny", "😀",
               "рядок\u2028другий", "NEL\x85 and FS\x1c inside")  # fmt: skip


@st.composite
def one_wrong_cell(draw: st.DrawFn, suffix: str, names: list[str], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` as they were but for one cell: arbitrary text, or in JSON Lines a value of another type or none."""
    if not rows or not names:
        return rows
    rows = [dict(row) for row in rows]
    row, name = draw(st.sampled_from(rows)), draw(st.sampled_from(names))
    change = draw(st.sampled_from(["text", "json", "missing"] if suffix == ".jsonl" else ["text"]))
    if change == "missing":
        row.pop(name, None)
    else:
        row[name] = draw(texts(broken_text(draw)) if change == "text" else json_values(broken_text(draw)))
    return rows


def _delimited_text(draw: st.DrawFn, suffix: str, names: list[str], rows: list[dict[str, Any]]) -> str:
    """Rows written by the csv module (CSV or TSV) or one JSON object a line, after an optional BOM."""
    if suffix == ".jsonl":
        ensure_ascii = draw(st.booleans())
        content = "".join(json.dumps(row, ensure_ascii=ensure_ascii) + "\n" for row in rows)
    else:
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=DELIMITERS[suffix], lineterminator=draw(st.sampled_from(["\r\n", "\n"])))
        writer.writerow(names)
        writer.writerows([[row.get(name, "") for name in names] for row in rows])
        content = buffer.getvalue()
    return (BOM if draw(st.booleans()) else "") + content


@st.composite
def userfile_cases(draw: st.DrawFn) -> FileCase:
    """A labelled user file: text, label and perhaps split columns. Clean files (Ekman labels, real texts) must
    be scored; messy ones have arbitrary cells, unknown labels and splits, wrong JSON types, missing columns."""
    suffix = draw(st.sampled_from([".csv", ".tsv", ".jsonl"]))
    mode = draw(st.sampled_from(["clean", "one wrong cell", "messy"]))
    clean = mode != "messy"
    broken = not clean and broken_text(draw)
    label_name = draw(st.sampled_from(["label", "labels", "emotion", "gold"]))
    use_split = draw(st.booleans())
    names = draw(st.permutations(["text", label_name, *(["split"] if use_split else [])]))
    if not clean:
        names = [name for name in names if draw(st.integers(0, 9)) > 0]  # now and then a column is missing
        names += draw(st.lists(column_names(broken), max_size=1))
    pools = {"text": CLEAN_TEXTS, label_name: EKMAN, "split": SPLIT_CELLS[:3]}
    messy_pools = {
        "text": texts(broken),
        label_name: st.sampled_from(LABEL_CELLS),
        "split": st.sampled_from(SPLIT_CELLS),
    }
    rows = []
    for _ in range(draw(st.integers(1 if clean else 0, 8))):
        row = {}
        for name in names:
            if clean:
                row[name] = draw(st.sampled_from(pools[name]))
                continue
            row[name] = draw(messy_pools.get(name, texts(broken)))
            if suffix == ".jsonl" and draw(st.integers(0, 4)) == 0:
                row[name] = draw(json_values(broken))  # a wrong JSON type
        rows.append(row)
    if clean and use_split and not any(row["split"] == "test" for row in rows):
        rows[0]["split"] = "test"
    test_rows = [row for row in rows if not use_split or row.get("split") == "test"]
    if mode == "one wrong cell":
        rows, clean = draw(one_wrong_cell(suffix, names, rows)), False
    content = _delimited_text(draw, suffix, names, rows)
    options = [*(["--label-col", label_name] if label_name == "gold" else []),
               *(["--split-col", "split"] if use_split else [])]  # fmt: skip
    case = FileCase(suffix, _encode(content), None, None, clean, False, tuple(options),
                    {"test_rows": len(test_rows) if clean else None})  # fmt: skip
    return _finish(draw, case, text_format=False)


def check_userfile(case: FileCase, workdir: Path) -> Outcome:
    """``affectlab eval --model default --fast --dataset FILE``: the user-file loader, then scoring."""
    source = workdir / f"mine{case.suffix}"
    source.write_bytes(case.data)
    outcome = invoke(["eval", "--model", "default", "--fast", "--dataset", source, *case.options, "--no-record",
                      "--bootstrap", "10", "--json"])  # fmt: skip
    check_exit(outcome)
    if not is_utf8(case.data):
        assert outcome.code == 2, "a file that is not UTF-8 was accepted"
    _check_expectation(case, outcome)
    if outcome.code == 0 and case.extra["test_rows"] is not None and not case.damaged:
        record = json.loads(outcome.out)
        assert record["n"] == case.extra["test_rows"], f"n={record['n']}, expected {case.extra['test_rows']}"
    assert sorted(workdir.iterdir()) == [source], "eval --no-record wrote files"
    return outcome


# ---- annotation files (affectlab annotate agreement|aggregate) ----------------------------------------------------

ITEMS = ("t1", "t2", "t3", " t1", "1", "1.0", "")
ANNOTATORS = ("A", "B", "C", "")
LABELS = ("joy", "fear", "anger", "", "j\noy")
VALUES = ("0", "1", "2", "", "0.5", "x", "nan", "inf", "-1", "1e400")


@st.composite
def _clean_ratings(draw: st.DrawFn, layout: str, with_values: bool) -> tuple[list[str], list[dict[str, Any]], int]:
    """Ratings every reader must accept: (columns, rows, number of items). Each item is rated by each annotator,
    each (item, annotator, label) at most once."""
    items = draw(
        st.lists(st.sampled_from(["t1", "t2", "t3", "t4", "5", "пост-6"]), min_size=1, max_size=6, unique=True)
    )
    annotators = draw(st.lists(st.sampled_from(["A", "B", "C", "Аня"]), min_size=2, max_size=4, unique=True))
    labels = draw(st.lists(st.sampled_from(["joy", "fear", "anger"]), min_size=1, max_size=3, unique=True))
    value = st.sampled_from([0, 1, 2])
    rows: list[dict[str, Any]] = []
    if layout == "wide":
        names = ["item", "label", *(f"Annotator-{name}" for name in annotators)]
        for item in items:
            rows += [{"item": item, "label": label, **{f"Annotator-{a}": draw(value) for a in annotators}}
                     for label in labels]  # fmt: skip
    elif with_values:
        names = ["item", "annotator", "label", "value"]
        for item in items:
            rows += [{"item": item, "annotator": a, "label": label, "value": draw(value)}
                     for a in annotators for label in labels]  # fmt: skip
    else:
        names = ["item", "annotator", "label"]
        for item in items:
            for annotator in annotators:
                chosen = draw(st.lists(st.sampled_from(labels), min_size=0 if rows else 1, unique=True))
                rows += [{"item": item, "annotator": annotator, "label": label} for label in chosen or [""]]
    rows = draw(st.permutations(rows))
    if draw(st.booleans()):
        names.append("text")
        for row in rows:
            row["text"] = f"text of {row['item']}"
    return names, rows, len(items)


@st.composite
def annotation_cases(draw: st.DrawFn) -> FileCase:
    """Crowd ratings in the long or the wide layout: clean ones (must be read), or messy ones with cells from
    small pools (so items, annotators and labels repeat and collide), arbitrary text, wrong JSON types and
    missing columns."""
    suffix = draw(st.sampled_from([".csv", ".tsv", ".jsonl"]))
    layout = draw(st.sampled_from(["long", "wide"]))
    with_values = draw(st.booleans())
    mode = draw(st.sampled_from(["clean", "one wrong cell", "messy"]))
    clean = mode == "clean"
    items = None
    if mode != "messy":
        names, rows, items = draw(_clean_ratings(layout, with_values))
        if mode == "one wrong cell":
            rows, items = draw(one_wrong_cell(suffix, names, rows)), None
    else:
        broken = broken_text(draw)
        if layout == "long":
            names = ["item", "annotator", "label", *(["value"] if with_values else [])]
        else:
            annotator_names = st.sampled_from(["Annotator-1", "Annotator-2", "Annotator-3"])
            names = ["item", "label", *draw(st.lists(annotator_names, min_size=1, max_size=3, unique=True))]
        names += draw(st.lists(st.sampled_from(["text", "note"]), max_size=1))
        names = [name for name in names if draw(st.integers(0, 19)) > 0]
        pools = {"item": ITEMS, "annotator": ANNOTATORS, "label": LABELS, "value": VALUES}
        rows = []
        for _ in range(draw(st.integers(0, 12))):
            row = {}
            for name in names:
                pool = pools.get(name, VALUES if name.startswith("Annotator") else None)
                if pool and draw(st.integers(0, 5)) > 0:
                    row[name] = draw(st.sampled_from(pool))
                else:
                    row[name] = draw(texts(broken))
                if suffix == ".jsonl" and draw(st.integers(0, 5)) == 0:
                    row[name] = draw(json_values(broken))
            rows.append(row)
    content = _delimited_text(draw, suffix, names, rows)
    if suffix == ".jsonl" and mode == "messy" and draw(st.integers(0, 4)) == 0:  # the record a layout is guessed from
        content = '{"item": ' + draw(st.sampled_from(RAW_JSON)) + ', "annotator": "A", "label": "joy"}\n' + content
    options = ["--item-col", "item", "--label-col", "label"]
    if draw(st.booleans()):  # else the layout is guessed from the header (or first record)
        options += ["--layout", layout, *(["--annotator-col", "annotator"] if layout == "long" else [])]
    if layout == "long" and with_values:
        options += ["--value-col", "value"]
    if "text" in names and draw(st.booleans()):
        options += ["--text-col", "text"]
    command = draw(st.sampled_from(["agreement", "agreement", "aggregate"]))
    case = FileCase(suffix, _encode(content), None, None, clean, False, tuple(options),
                    {"command": command, "items": items})  # fmt: skip
    return _finish(draw, case, text_format=False)


def check_annotation(case: FileCase, workdir: Path) -> Outcome:
    """``affectlab annotate agreement FILE`` (bootstrap off) or ``annotate aggregate FILE --out OUT.csv``."""
    source = workdir / f"ratings{case.suffix}"
    source.write_bytes(case.data)
    output = workdir / "aggregated.csv"
    aggregating = case.extra["command"] == "aggregate"
    if aggregating:
        args = ["annotate", "aggregate", source, *case.options, "--method", "majority", "--out", output, "--json"]
    else:
        args = ["annotate", "agreement", source, *case.options, "--bootstrap", "0", "--json"]
    outcome = invoke(args)
    check_exit(outcome)
    if not is_utf8(case.data):
        assert outcome.code == 2, "a file that is not UTF-8 was accepted"
    _check_expectation(case, outcome)
    if outcome.code == 0:
        report = json.loads(outcome.out)
        n_items = report["n_items"] if aggregating else report["overall"]["n_items"]
        if case.extra["items"] is not None and not case.damaged:
            assert n_items == case.extra["items"], f"{n_items} items, expected {case.extra['items']}"
        if aggregating:
            with open(output, encoding="utf-8", newline="") as file:
                written = list(csv.DictReader(file))
            assert len(written) == n_items, "the aggregation file has not one row per item"
    left = set(workdir.iterdir()) - {source}
    assert left == ({output} if outcome.code == 0 and aggregating else set()), sorted(p.name for p in left)
    return outcome


# ---- Eval-UA-tion instance files (affectlab ua eval --file) --------------------------------------------------------

UA_TASKS = ("lmes-wordlength", "lmes-cats-bin", "ua-cbt", "up-titles", "lmes-nope")
UA_OPTIONS = {"lmes-cats-bin": ["так", "ні"], "ua-cbt": ["кіт", "пес", "сова"], "up-titles": ["Заголовок 1", "Інший"]}


class FirstOptionScorer:
    """A stand-in language model that always answers with the first option (no model to load)."""

    name = "first-option"

    def score(self, prompt: str, targets: Any) -> Any:
        from affectlab.uatasks.multiple_choice import Prediction

        assert isinstance(prompt, str) and all(isinstance(target, str) for target in targets)
        return Prediction(0, tuple(float(-i) for i in range(len(targets))))


@contextlib.contextmanager
def stub_language_model() -> Iterator[None]:
    """``ua eval --model ...`` answered by :class:`FirstOptionScorer`: the instance file reader is what is fuzzed."""
    import affectlab.uatasks.jobs as jobs

    with mock.patch.object(jobs, "_scorer", lambda model, endpoint: FirstOptionScorer()):
        yield


@st.composite
def ua_records(draw: st.DrawFn, task: str, number: int, messy: bool) -> dict[str, Any]:
    """An instance record as `ua generate` writes it; when ``messy``, a field may be missing, of the wrong type, or
    unknown, and the task and options arbitrary."""
    options = list(UA_OPTIONS.get(task, ["довгий", "кит"]))
    record: dict[str, Any] = {
        "task": task,
        "question": draw(texts(False)) if messy else f"Питання {number}: ______?",
        "options": options,
        "answer": draw(st.integers(0, len(options) - 1)),
        "id": f"q{number}",
        "context": draw(st.sampled_from(["", "Жив-був кіт.\nІ пес.", "рядок\u2028другий", "NEL\x85, FS\x1c"])),
        "template_id": draw(st.sampled_from([None, "template_1"])),
        "few_shot": draw(st.booleans()),
        "metadata": draw(st.sampled_from([{}, {"variant": "a"}])),
    }
    if not messy:
        return record
    record["task"] = draw(st.sampled_from(UA_TASKS))
    record["answer"] = draw(st.integers(-1, 4))
    record["options"] = draw(st.one_of(
        st.lists(st.sampled_from(["так", "ні", "кіт", "пес", "A", "B", " "]), min_size=1, max_size=4),
        st.lists(JSON_VALUES, max_size=4),
    ))  # fmt: skip
    for key in list(record):
        change = draw(st.integers(0, 9))
        if change == 0:
            del record[key]
        elif change == 1:
            record[key] = draw(json_values(broken_text(draw)))
    if draw(st.integers(0, 19)) == 0:
        record["surprise"] = 1
    return record


@st.composite
def ua_cases(draw: st.DrawFn) -> FileCase:
    """A JSON Lines file of instances: clean ones (must be evaluated without shots), or messy ones with records of
    the wrong shape, lines that are not JSON objects, huge numbers and deep nesting."""
    task = draw(st.sampled_from(UA_TASKS[:4]))
    mode = draw(st.sampled_from(["clean", "one wrong field", "messy"]))
    clean = mode == "clean"
    lines, records = [], []
    for number in range(draw(st.integers(0 if mode == "messy" else 1, 8))):
        kind = (
            "record"
            if mode != "messy"
            else draw(st.sampled_from(["record"] * 8 + ["blank", "scalar", "broken", "raw"]))
        )
        if kind == "record":
            records.append(draw(ua_records(task, number, messy=mode == "messy" and draw(st.booleans()))))
            lines.append(json.dumps(records[-1], ensure_ascii=draw(st.booleans())))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\r"])))
        elif kind == "scalar":
            lines.append(json.dumps(draw(st.one_of(JSON_SCALARS, st.lists(JSON_SCALARS, max_size=2)))))
        elif kind == "broken":
            lines.append('{"task": "ua-cbt", ')
        else:
            raw = json.dumps(draw(ua_records(task, number, messy=False)))
            lines.append(raw[:-1] + ', "metadata": ' + draw(st.sampled_from(RAW_JSON)) + "}")
    if mode == "one wrong field":  # a file that is right but for one field of one record
        number = draw(st.integers(0, len(records) - 1))
        record = dict(records[number])
        key = draw(st.sampled_from([*record, "surprise"]))
        if key in record and draw(st.booleans()):
            del record[key]
        else:
            record[key] = draw(json_values(broken_text(draw)))
        lines[number] = json.dumps(record, ensure_ascii=draw(st.booleans()))
    terminator = draw(st.sampled_from(["\n", "\r\n"]))
    content = (BOM if draw(st.booleans()) else "") + terminator.join(lines) + terminator
    shots = 0 if clean else draw(st.integers(0, 2))
    evaluated = ([r for r in records if not r["few_shot"]] or records) if clean else []
    case = FileCase(".jsonl", _encode(content), None, None, clean, False, ("--shots", str(shots)),
                    {"task": task, "n": len(evaluated) if clean else None})  # fmt: skip
    return _finish(draw, case, text_format=False)


def check_ua(case: FileCase, workdir: Path) -> Outcome:
    """``affectlab ua eval TASK --model M --file FILE --predictions OUT.jsonl`` with a stand-in model."""
    source = workdir / "instances.jsonl"
    source.write_bytes(case.data)
    output = workdir / "predictions.jsonl"
    with stub_language_model():
        outcome = invoke(["ua", "eval", case.extra["task"], "--model", "stub", "--file", source, *case.options,
                          "--predictions", output, "--json"])  # fmt: skip
    check_exit(outcome)
    if not is_utf8(case.data):
        assert outcome.code == 2, "a file that is not UTF-8 was accepted"
    _check_expectation(case, outcome)
    if outcome.code == 0:
        record = json.loads(outcome.out)
        if case.extra["n"] is not None and not case.damaged:
            assert record["n"] == case.extra["n"], f"n={record['n']}, expected {case.extra['n']}"
        lines = output.read_bytes().decode("utf-8").split("\n")
        assert lines[-1] == "" and len(lines) - 1 == record["n"], "not one prediction line per instance"
        assert sorted(workdir.iterdir()) == sorted([source, output])
    else:
        assert sorted(workdir.iterdir()) == [source], "a failed run left files behind"
    return outcome


# ---- the readers, by name -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    """One fuzzed CLI path: its cases and its property."""

    name: str
    cases: Callable[[], st.SearchStrategy[Any]]
    check: Callable[[Any, Path], Outcome]


READERS = {
    **{f"detect{suffix}": Reader(f"detect{suffix}", lambda s=suffix: detect_cases(s), check_detect)
       for suffix in (".csv", ".tsv", ".jsonl", ".txt", ".parquet")},
    **{f"score{suffix}": Reader(f"score{suffix}", lambda s=suffix: score_cases(s), check_score)
       for suffix in (".csv", ".parquet")},
    "eval-userfile": Reader("eval-userfile", userfile_cases, check_userfile),
    "annotate": Reader("annotate", annotation_cases, check_annotation),
    "ua-eval-file": Reader("ua-eval-file", ua_cases, check_ua),
}  # fmt: skip
