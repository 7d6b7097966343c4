"""Collecting crowd labels (issues 44, 53): a project file with an append-only event log (:mod:`.log`) of typed
events (:mod:`.events`, made by :mod:`.creation`), the state they derive (:mod:`.state` over :mod:`.records`), who
gets which items (:mod:`.scheduling`), tokens and refusals (:mod:`.access`), the checking of answers
(:mod:`.answers`), a submission's events and the quality rules (:mod:`.submission`, :mod:`.rules`), the work of
annotators and owner (:mod:`.project`), read views (:mod:`.views`), stage gates (:mod:`.gates`), the owner's reports
(:mod:`.reports`), one merging of answers into labels (:mod:`.merging`), the export (:mod:`.export`), the HTTP
service (:mod:`.app`, its answers declared in :mod:`.schemas`), simulated crowds that work through it
(:mod:`.crowd`, :mod:`.simulate`) and the commands' jobs (:mod:`.jobs`)."""
