"""One record per metric (:mod:`affectlab.metrics.registry`): the dataset specs, the primary score and the
bootstrap read it, and the metrics package sits below the datasets package."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import affectlab.metrics
from affectlab.labels import EKMAN, TAXONOMY_RECORDS
from affectlab.metrics.bootstrap import bootstrap_ci
from affectlab.metrics.registry import INTENSITY_METRIC_NAMES, METRICS, PRIMARY_METRIC_NAMES


def test_every_metric_says_how_it_averages_and_where_it_comes_from():
    for name, metric in METRICS.items():
        assert metric.name == name and metric.averaging and metric.source
    assert INTENSITY_METRIC_NAMES == ("pearson_intensity",)


def test_every_taxonomy_is_judged_by_a_registered_primary_metric():
    assert {taxonomy.primary_metric for _, taxonomy in TAXONOMY_RECORDS.items()} <= set(PRIMARY_METRIC_NAMES)


def test_a_metric_without_a_count_form_has_no_bootstrap():
    assert METRICS.get("pearson_intensity").from_counts is None
    with pytest.raises(ValueError, match="no bootstrap for metric 'pearson_intensity'"):
        bootstrap_ci(np.zeros((2, 7)), np.zeros((2, 7)), EKMAN, "pearson_intensity")


def test_no_metrics_module_imports_the_datasets_package():
    for path in Path(affectlab.metrics.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(name.startswith("affectlab.datasets") for name in names), path.name
