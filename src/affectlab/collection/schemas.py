"""What every route of the collection service answers, declared once as pydantic models: FastAPI checks each answer
against its model and the OpenAPI document (``/openapi.json``) carries the schema, as the detection service's do
(issue 53). The views (:mod:`.views`, :mod:`.reports`) build these shapes; a field they add or drop fails the
service's tests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from affectlab.annotation.protocol import Choice, Intensity, Localised, Rule


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class StageStanding(_Out):
    """A stage as an annotator sees it: open or not, and what they must do first."""

    name: str
    labels: list[str]
    open: bool
    needs: Literal["training", "exam"] | None


class Standing(_Out):
    """An annotator's own standing: status, until when, pages done, and per stage what comes next."""

    name: str
    status: Literal["active", "banned", "paused", "retrain"]
    until: float | None
    pages: int
    stages: list[StageStanding]


class PublicStage(_Out):
    """A stage's labels and instructions."""

    name: str
    labels: list[str]
    instructions: Localised


class PublicProtocol(_Out):
    """The protocol as annotators may read it (no exam answers, no control tasks)."""

    name: str
    interface_languages: list[str]
    labels: list[Choice]
    none_choice: Choice | None
    other_choice: Choice | None
    multi_label: bool
    intensity: Intensity | None
    shows_context: bool
    skip: bool
    flag: bool
    difficult_flag: bool
    page_size: int
    stages: list[PublicStage]
    rules: list[Rule]
    messages: dict[str, dict[str, str]]


class TrainingExample(_Out):
    """A training example with its answer and explanation."""

    text: str
    labels: list[str]
    intensities: dict[str, int]
    explanation: Localised


class Training(_Out):
    """A stage's training."""

    examples: list[TrainingExample]


class PageItem(_Out):
    """A text on a page or in an exam, known by its position (its context: the dialogue turns before it)."""

    position: int
    text: str
    context: list[str] = []


class ExamItem(_Out):
    """An exam's text, known by its position."""

    position: int
    text: str


class Exam(_Out):
    """An exam's texts (never their answers)."""

    items: list[ExamItem]


class ExamResult(_Out):
    """How an exam went."""

    accuracy: float
    passed: bool
    pass_accuracy: float


class PageOut(_Out):
    """The annotator's page (``page`` None with a ``reason`` when no text is left for them)."""

    page: str | None
    stage: str | None = None
    expires_at: float | None = None
    items: list[PageItem] = []
    reason: str | None = None


class StageProgress(_Out):
    """A stage's progress."""

    stage: str
    open: bool
    items: int
    complete: int
    answers: int
    skips: int
    open_pages: int


class Progress(_Out):
    """Progress per stage."""

    stages: list[StageProgress]


class ExamRecord(_Out):
    """An exam an annotator took."""

    stage: str
    accuracy: float
    passed: bool


class AnnotatorRecord(_Out):
    """An annotator as the owner sees them."""

    name: str
    pseudonym: str
    status: Literal["active", "banned", "paused", "retrain", "revoked", "expired"]
    pages: int
    skipped_pages: int
    median_seconds: float | None
    control_accuracy: float | None
    exams: list[ExamRecord]
    actions: list[dict[str, Any]]


class Annotators(_Out):
    """Every annotator's record."""

    annotators: list[AnnotatorRecord]


class Invitation(_Out):
    """A new invite: the name as stored and the token (shown once)."""

    name: str
    token: str


class OwnerToken(_Out):
    """The owner's new token (shown once)."""

    owner_token: str


class Revocation(_Out):
    """A revoked invite."""

    name: str
    revoked: bool


class StageOpening(_Out):
    """A gated stage opened: its items, the stage they come from and how many were aggregated there."""

    stage: str
    items: int
    source: str = Field(alias="from")
    aggregated: int


class Agreement(_Out):
    """Live agreement of a stage (``agreement`` None with a ``reason`` while there is none)."""

    stage: str
    agreement: dict[str, Any] | None
    reason: str | None = None
    shcmp: dict[str, float | None] | None = None


class PreviewItem(_Out):
    """An aggregated text of the preview."""

    text: str
    labels: list[str]
    confidence: float


class AggregationPreview(_Out):
    """The protocol's aggregation of a stage so far."""

    stage: str
    method: str | None = None
    items: int
    labels: dict[str, int]
    share_passing: float | None
    first: list[PreviewItem]


class Health(_Out):
    """The service is up."""

    status: str
