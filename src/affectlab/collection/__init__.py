"""Collecting crowd labels (issue 44): a project file with an append-only event log (:mod:`.log`), the state it
derives (:mod:`.state`), the quality rules (:mod:`.rules`), the checking of answers (:mod:`.answers`), the work of
annotators and owner (:mod:`.project`), the owner's reports (:mod:`.reports`), the export (:mod:`.export`), the HTTP
service (:mod:`.app`), simulated crowds that work through it (:mod:`.crowd`) and the commands' jobs (:mod:`.jobs`)."""
