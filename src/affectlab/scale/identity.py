"""What a batch run records of its model, so that it resumes, or adds to a folder of outputs, only with the same
model (:mod:`affectlab.io.resume`): the options that choose the model, by their command-line names, and the model's
checksum, which changes when a model is saved again in place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from affectlab.detectors import Detector
from affectlab.detectors.resolve import ModelRef, describe_model


def model_identity(model: ModelRef, taxonomy: str, fast: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The model a file run uses, as it records it to resume only with the same model (:mod:`affectlab.io.resume`):
    the options that choose it, by their command-line names (``--model``: ``"default"``, a saved folder's resolved
    path or a detector object's description; for the default, ``--taxonomy`` and ``--fast``, which choose its head
    and profile), and the ``model checksum``: the start of the ``config_sha256`` of the saved folder or default head
    it is read from, which covers every file of the model, so it changes when the model is saved again in place."""
    if isinstance(model, Detector):  # an object has no identity beyond its kind and where it was loaded from
        return {"--model": describe_model(model)}, {}
    if str(model) == "default":
        from affectlab.detectors.default import HEADS_DIR

        options = {"--model": "default", "--taxonomy": taxonomy, "--fast": fast}
        return options, {"model checksum": _config_sha256(HEADS_DIR / taxonomy)}
    folder = Path(model).resolve()
    return {"--model": str(folder)}, {"model checksum": _config_sha256(folder)}


def _config_sha256(folder: Path) -> str | None:
    """The checksum a saved model's config.json records of itself (its arrays' and files' checksums included)."""
    from affectlab.detectors.serialization import CONFIG

    try:
        config = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None  # the model was loaded from it a moment ago: only a concurrent rewrite gets here
    digest = config.get("config_sha256") if isinstance(config, dict) else None
    return digest[:16] if isinstance(digest, str) else None  # 64 bits tell two saves apart, and read in a message
