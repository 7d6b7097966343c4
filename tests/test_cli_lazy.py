"""The command line imports a command's module only when that command runs: ``affectlab --help`` lists every
command from its summary alone, and ``affectlab detect`` leaves the other command groups (crowd-kit, Ray, the
service, the UA tasks) unimported."""

import inspect
import subprocess
import sys

import pytest

from affectlab.cli import COMMANDS, load_command

PROBE = """
import sys
from affectlab.cli import main
code = main(sys.argv[1:])
print(" ".join(sorted(sys.modules)))
sys.exit(code)
"""
COMMAND_MODULES = {f"affectlab.cli.{spec.module}" for spec in COMMANDS.values()}


def modules_after(*args: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``affectlab ARGS``."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    return set(done.stdout.strip().splitlines()[-1].split())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_summary_is_the_first_paragraph_of_its_commands_help(name):
    command = load_command(name)
    assert command.name == name
    assert COMMANDS[name].summary == inspect.cleandoc(command.help or "").split("\n\n")[0]


def test_help_lists_every_command_without_importing_any():
    loaded = modules_after("--help")
    assert not loaded & COMMAND_MODULES
    assert not {"affectlab.detectors", "sklearn", "pandas", "datasets"} & loaded


@pytest.mark.slow
def test_detect_imports_only_what_detection_needs():
    loaded = modules_after("detect", "--fast", "Я так чекала на цей день!")
    assert "affectlab.cli.detect_cmd" in loaded
    assert not loaded & (COMMAND_MODULES - {"affectlab.cli.detect_cmd"})
    unused = {"crowdkit", "ray", "torch", "transformers", "fastapi", "datasets", "affectlab.annotation",
              "affectlab.uatasks", "affectlab.openstates", "affectlab.evaluation"}  # fmt: skip
    assert not unused & loaded


@pytest.mark.slow
def test_detect_open_reads_the_shipped_predictor_without_scikit_learn():
    loaded = modules_after("detect", "--open", "I finally got the job and I feel <extra_id_0>", "--json")
    assert "affectlab.openstates.predictors.open_vocabulary" in loaded
    assert not {"sklearn", "torch", "transformers", "fastapi"} & loaded
