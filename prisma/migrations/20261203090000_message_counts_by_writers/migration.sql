-- The message counts' deltas (docs/decisions.md#message-counts) are appended by the two writers of
-- history, acceptance and applyTransitions, in the statement that writes it, from rows that
-- statement already holds (account, creation hour, old and new status). The statement trigger
-- did the same by joining every statement's new history rows back to their messages, in a query
-- planned for each statement: about a tenth of PostgreSQL's time per message at full speed
-- (docs/benchmarks.md#count-deltas-by-writers).
--
-- Deploy with the code that writes the deltas (docs/operations.md#message-counts-writers): a status
-- changed by a process of the code before this migration, once it has run, is not counted.
DROP TRIGGER message_events_count_deltas ON message_events;
DROP FUNCTION message_events_count_deltas();
