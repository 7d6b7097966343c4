"""Who may do what in a collection project: tokens (stored hashed), the refusals a request meets (banned, on a
break, back to training, the exam's order and attempts), as :class:`CollectionError`\\ s with their HTTP status."""

from __future__ import annotations

import hashlib
import secrets
import time

from affectlab.annotation.protocol import Stage
from affectlab.collection.state import AnnotatorState
from affectlab.errors import AffectlabError


class CollectionError(AffectlabError):
    """A request the project refuses: ``status`` is its HTTP status (403 forbidden now, 404 not found, 409 in
    conflict with the state)."""

    def __init__(self, message: str, status: int, key: str | None = None, **params: str) -> None:
        super().__init__(message)
        self.status = status
        self.key = key
        """The annotation page's message for it (``pages/messages.json``), when annotators can meet it."""
        self.params = params


def token_hash(token: str) -> str:
    """How a token is stored: SHA-256 (the tokens are 256 random bits, so a slow hash adds nothing)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh token of 256 random bits."""
    return secrets.token_urlsafe(32)


def check_not_blocked(annotator: AnnotatorState, now: float, training: bool = False) -> None:
    """Refuse an annotator who is banned or on a break, or (unless the request is ``training`` or its exam) who
    was sent back to training."""
    blocked = annotator.blocked(now)
    if blocked is not None:
        when = "" if blocked[1] is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(blocked[1]))
        until = f" until {when}" if when else ""
        word, key = ("banned", "error_banned") if blocked[0] == "banned" else ("on a break", "error_paused")
        raise CollectionError(f"{word}{until}", 403, key + ("_until" if when else ""), time=when)
    if annotator.retrain and not training:
        raise CollectionError("take the training and pass the exam again before more pages", 403, "error_retrain")


def check_may_take_exam(annotator: AnnotatorState, stage: Stage, now: float) -> None:
    """Refuse an exam of ``stage`` the annotator may not take now: none, blocked, training unread, already
    passed, or failed the protocol's number of times in a row."""
    if stage.exam is None:
        raise CollectionError(f"stage {stage.name!r} has no exam", 404)
    check_not_blocked(annotator, now, training=True)
    if stage.training is not None and stage.name not in annotator.trained:
        raise CollectionError("read the training before the exam", 403, "error_read_training")
    if stage.name in annotator.passed:
        raise CollectionError(f"the exam of stage {stage.name!r} is already passed", 409, "error_exam_passed")
    if stage.exam.attempts is not None and failed_in_a_row(annotator, stage.name) >= stage.exam.attempts:
        raise CollectionError(f"the exam of stage {stage.name!r} was failed {stage.exam.attempts} times", 403,
                              "error_exam_attempts", attempts=str(stage.exam.attempts))  # fmt: skip


def failed_in_a_row(annotator: AnnotatorState, stage: str) -> int:
    """How many times ``annotator`` has failed the exam of ``stage`` since they last passed it (or ever)."""
    taken = [exam["passed"] for exam in annotator.exams if exam["stage"] == stage]
    return len(taken) - (max(i for i, passed in enumerate(taken) if passed) + 1 if any(taken) else 0)
