"""Opening a gated stage: the items that pass its gate (:meth:`~affectlab.annotation.protocol.Protocol.passes_gate`)
by their aggregated labels in the gate's stage, among the items that have all their answers there. Opening again
adds the items done since."""

from __future__ import annotations

from typing import Any

from affectlab.collection.access import CollectionError
from affectlab.collection.project import Project
from affectlab.collection.reports import stage_aggregation


def open_stage(project: Project, stage_name: str) -> dict[str, Any]:
    """Open the gated stage ``stage_name`` of ``project`` (the aggregation runs outside the project's lock):
    the stage, its items, the stage they come from and how many items were aggregated there."""
    stage = project.stage(stage_name)
    if stage.gate is None:
        raise CollectionError(f"stage {stage_name!r} has no gate: it is open from the start", 409)
    source = project.stages[stage.gate.after]
    aggregation = stage_aggregation(project, source.name, complete_only=True)
    if aggregation is None:
        raise CollectionError(f"no item of stage {source.name!r} has all its answers yet", 409)
    items = [str(row.item) for row in aggregation.items.itertuples()
             if project.protocol.passes_gate(stage, set(row.labels))]  # fmt: skip
    project.add_stage_items(stage, items)
    return {"stage": stage.name, "items": len(items), "from": source.name, "aggregated": len(aggregation.items)}
