# ruff: noqa  (vulture reads this file; the names are attribute uses on `_`, never run)
"""Names vulture (dead code, run by scripts/check) cannot see used: read by a framework, a
template or a registry by name. Each line names one; this file is only read by vulture."""

# pydantic and pydantic-settings read these by name
_.model_config
_.settings_customise_sources
_._load_env_vars
# learning/methodology/profiles.py and learning/lessons/voice_proposals.py: the fields of a model's answer / profile
_.signature_start
_.golden_ratios
_.discussion_rules
_.content_checklists
_.transition_phrases
_.anti_patterns
_.voice_invariants
_.openings
_.transitions
# ops/tasks.py: the scheduler registers its jobs by name (ops/scheduler.py `_lazy`)
_.weekly_feedback_analysis
_.stale_case_reminder
_.sync_case_status
# the standard library calls these by name, with these parameters
_.log_message  # http.server.BaseHTTPRequestHandler
_.redirect_request  # urllib.request.HTTPRedirectHandler
_.newurl
_.frame  # a signal handler's second parameter
# psycopg's connection and cursor settings
_.isolation_level
_.itersize
# the desk's templates read these by name
_.bulk  # _review_bulk.html
_.choose  # search.html
_.holds  # search.html
_.revisions  # upload_stages.html (final_uploads.Task)
_.comment_count  # upload_stages.html (a Word final's open comments)
# onnxruntime's SessionOptions are set as attributes (providers/rerankers.py)
_.log_severity_level
# retrieval/contract.py: keys of the search answer's TypedDicts, written as dict literals
_.explain
_.canonical_statement
_.identifier
_.dropped_unverified
_.semantic_query_chars
_.term_once_confirmed
_.chunk_id
# ingest/pipeline.py: a key of the ingest answer's TypedDicts, written through a dict subscript
_.enrichment_queued
# The JSON answers' TypedDicts (DESIGN §10), whose keys are written as dict literals or
# subscripts: ingest/reindex.py and ops/upkeep.py (reindex), learning/engine/job_report.py (learning
# run), learning/lessons/panel_stats.py, learning/principles/extraction.py and synthesis.py
_.exemplars_recut
_.text_restored
_.count_changed
_.canonical_statements
_.metadata_folded
_.auto_approved
_.calls_by_stage
_.agreement
_.coverage
_.reversal_rate
_.pending_review
_.dropped_quotes
_.attempted
_.abstained
_.drift_rejected
# jobs list (ops/scheduler.py), learning history (learning/pairs/finals.py), principles list
# (learning/principles/review.py), draft add and final upload (learning/pairs/drafts.py,
# finals.py), and the `page` object of paged answers (paging.PageInfo)
_.anti_pattern_total
_.as_of
_.blocks_missing
_.captured_at
_.final_anti_pattern_total
_.final_version
_.last_error
_.last_finished_at
_.last_outcome
_.last_started_at
_.last_summary
_.learning_job
_.methodology_size
_.missing_blocks
_.next_offset
_.profile_finals
_.report_id
_.returned_at
_.returned_reason
_.review_reason
_.style_document_id
_.stylometric_delta
_.word_edit_distance
# health (ops/database_health.AppHealth, ops/health.Health and the lists they spread), and isolation's
# ChunkAudit / IsolationReport (store/audit.py, retrieval/audit.py)
_.awaiting_enrichment
_.canonicals_changed
_.changed_outside_ingest
_.dimension_mismatches
_.exemplars_changed
_.library_rekey
_.metadata_unfolded
_.missing_embeddings
_.principles_changed
_.rechecked
_.stale_analysis
_.stale_embeddings
# the draft check's answer (learning/checks: CheckedCitation, Problem, JudgeWord, DraftCheck,
# StoredReport, ShownReport; learning/library.Treatment)
_.by_doc_id
_.checked_at
_.checked_by
_.citations_stopped
_.generic_left_out
_.held_section
_.in_quotation
_.looked_for
_.report_note
_.said_by
# the writer's brief (knowledge/brief.py: WritingBrief, Budget)
_.before_handing_over
_.block_order
_.channels
_.contrastive_examples
_.cut_first
_.folded_lessons
_.golden_ratios_from
_.never_cut
_.over_budget
# the rows of health's lists (paging.Listing[...]: ChangedPrinciple, AwaitingMetadata, ...)
_.enrichment_status
_.first_cited_in
_.job_status
_.rule_changed
_.span_changed
# the writer's knowledge tools (knowledge/exemplars.Exemplars, templates.Templates,
# contrastive.Contrasts)
_.block_label
_.diff_text
_.dropped_as_substance
_.formulaic_blocks
_.instruction_he
_.pairs_considered
_.query_from
# a gold set's report (learning/pairs/gold_set.GoldReport)
_.judgments
_.left_out_citations
_.min_words
# one case as its page reads it (learning/case_file.Ledger)
_.promotions
_.copy_rulings
# `legal-ai eval --json` (evaluation/harness.EvalReport)
_.p50
# the brief's channel B (knowledge/brief_examples.BriefContrast, contrastive.Contrasts)
_.instruction
# the curator's figures (knowledge/curator.Tally) and channel C (knowledge/voice.VoiceSource)
_.decided_by_chair
_.acceptance_rate
_.approved_at
