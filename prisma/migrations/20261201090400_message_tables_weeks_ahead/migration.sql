-- The week partitions of messages, message_events and message_segments from the conversion's
-- bound on (docs/decisions.md#partitions): 27 weeks, past the 180 days a message may be
-- scheduled ahead (the scheduler's retention loop keeps that horizon from here on), then a
-- default partition each, which takes any id no week covers so that an insert never fails.
-- Each is made as a table of its own and then attached, which locks the partitioned table only
-- in SHARE UPDATE EXCLUSIVE mode: messages keep being written meanwhile (created as partitions
-- inside the conversion's transaction, these 84 tables held every writer for seconds). The
-- weeks come before the defaults, so no attach has a default partition to scan and lock. An
-- attach of messages clones its foreign keys into accounts and batches, which holds back balance
-- updates until the commit: every table is made first, with the indexes of its partitioned table
-- (built on an empty table, then adopted by the attach), and the weeks of messages attached last.
DO $$
DECLARE
  bound text;
  first_week timestamptz;
  week timestamptz;
  tbl text;
  storage text;
BEGIN
  SELECT (regexp_match(pg_get_expr(relpartbound, oid), 'TO \(''([^'']+)''\)'))[1] INTO STRICT bound
    FROM pg_class WHERE oid = 'messages_legacy'::regclass;
  SELECT to_timestamp(sum((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(bound, 4 + i, 1)) - 1)
                          * power(32::numeric, 10 - i)) / 1000)
    INTO STRICT first_week FROM generate_series(1, 10) AS i;

  FOREACH tbl IN ARRAY ARRAY['message_events', 'message_segments', 'messages'] LOOP
    storage := CASE WHEN tbl = 'message_segments' THEN ' WITH (fillfactor = 80)' ELSE '' END;
    week := first_week;
    WHILE week < first_week + interval '27 weeks' LOOP
      -- Named by their first day, as the scheduler names them.
      EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING INDEXES)%s',
        tbl || '_p' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD'), tbl, storage);
      week := week + interval '7 days';
    END LOOP;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING INDEXES)%s',
      tbl || '_default', tbl, storage);
  END LOOP;

  FOREACH tbl IN ARRAY ARRAY['message_events', 'message_segments', 'messages'] LOOP
    week := first_week;
    WHILE week < first_week + interval '27 weeks' LOOP
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', tbl,
        tbl || '_p' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD'),
        id_bound_at('msg', week), id_bound_at('msg', week + interval '7 days'));
      week := week + interval '7 days';
    END LOOP;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I DEFAULT', tbl, tbl || '_default');
  END LOOP;
END $$;

