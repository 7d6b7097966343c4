"""Collecting crowd labels (issue 44): a project file with an append-only event log (:mod:`.log`), the state it
derives (:mod:`.state`), the quality rules (:mod:`.rules`), the work of annotators and owner (:mod:`.project`), the
owner's reports (:mod:`.reports`), the export (:mod:`.export`) and the HTTP service (:mod:`.app`)."""
