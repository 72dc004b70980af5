-- The extension's surface and its internals (issue 36, item 13): schema clarify holds only the
-- functions docs/reference.md documents (and those /work/shared/CONTRACT.md names); trigger and
-- event-trigger functions and their helpers live in clarify_internal, which no one but the owner
-- may use; every table, view and column says what it holds.
BEGIN;
SELECT plan(16);

CREATE ROLE regress_agent;
SELECT clarify.govern_role('regress_agent');

-- The surface: functions a user, an agent, the confirmer or a standby calls.
CREATE TEMP TABLE surface (name text) ON COMMIT DROP;
INSERT INTO surface VALUES
    ('resolve'), ('check'), ('last_decision'), ('gated'), ('confirm'), ('revoke'),
    ('govern_role'), ('release_role'), ('code_privileges'), ('purge_audit'), ('audit_queue'),
    ('audit_ingest'), ('audit_wait'), ('approval_wait'), ('eligible'), ('normalize_term'),
    ('mentions'), ('mentioned_terms'), ('replay_decision'),
    -- named by the contract for 1.2 (§17, §20), whenever they land
    ('replay'), ('lint'), ('evaluate'), ('evaluate_cases'), ('audit_metrics');

SELECT is_empty($$SELECT p.oid::regprocedure::text FROM pg_proc p
                   WHERE p.pronamespace = 'clarify'::regnamespace
                     AND p.proname NOT IN (SELECT name FROM surface)$$,
                'schema clarify holds no function outside the documented surface');
SELECT is_empty($$SELECT p.oid::regprocedure::text FROM pg_proc p
                   WHERE p.pronamespace = 'clarify'::regnamespace
                     AND p.prorettype IN ('trigger'::regtype, 'event_trigger'::regtype)$$,
                'no trigger or event-trigger function is in schema clarify');
SELECT is_empty($$SELECT t.tgrelid::regclass || ' ' || t.tgname FROM pg_trigger t
                   JOIN pg_class c ON c.oid = t.tgrelid
                   JOIN pg_proc p ON p.oid = t.tgfoid
                   WHERE c.relnamespace = 'clarify'::regnamespace AND NOT t.tgisinternal
                     AND p.pronamespace <> 'clarify_internal'::regnamespace$$,
                'every trigger on the catalog calls a function of clarify_internal');
SELECT ok((SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = 'clarify'::regnamespace AND NOT t.tgisinternal) >= 30,
          'and the catalog still has its triggers');
SELECT is((SELECT string_agg(e.evtname || ' ' || p.pronamespace::regnamespace, ', ' ORDER BY e.evtname)
             FROM pg_event_trigger e
             JOIN pg_proc p ON p.oid = e.evtfoid
             JOIN pg_depend d ON d.classid = 'pg_event_trigger'::regclass AND d.objid = e.oid
             JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'pg_clarify'),
          'clarify_follow_ddl clarify_internal, clarify_warn_dropped clarify_internal',
          'the extension''s event triggers call functions of clarify_internal');
SELECT ok(EXISTS (SELECT 1 FROM pg_depend d JOIN pg_extension x ON x.oid = d.refobjid
                   WHERE d.classid = 'pg_namespace'::regclass
                     AND d.objid = 'clarify_internal'::regnamespace
                     AND x.extname = 'pg_clarify' AND d.deptype = 'e'),
          'clarify_internal belongs to the extension (DROP EXTENSION drops it)');

-- Nobody but the owner may use the internal schema or run what is in it.
SELECT schema_privs_are('clarify_internal', 'public', ARRAY[]::text[],
                        'PUBLIC may not use clarify_internal');
SELECT ok(NOT has_schema_privilege('regress_agent', 'clarify_internal', 'USAGE'),
          'an agent role may not use clarify_internal');
SELECT is_empty($$SELECT p.oid::regprocedure::text FROM pg_proc p
                   WHERE p.pronamespace = 'clarify_internal'::regnamespace
                     AND has_function_privilege('regress_agent', p.oid, 'EXECUTE')$$,
                'an agent may execute no function of clarify_internal');
SET ROLE regress_agent;
SELECT throws_ok('SELECT clarify_internal.allowed_values(''clarify.concepts'', ''concepts_kind_check'')',
                 '42501', NULL, 'an agent cannot call an internal helper by name');
RESET ROLE;

-- Every table, view and column of the extension says what it holds.
SELECT is_empty($$SELECT c.oid::regclass::text FROM pg_class c
                   JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
                   JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'pg_clarify'
                   WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND obj_description(c.oid, 'pg_class') IS NULL$$,
                'every table and view of the extension has a comment');
SELECT is_empty($$SELECT c.oid::regclass || '.' || a.attname FROM pg_class c
                   JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
                   JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'pg_clarify'
                   JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                   WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND col_description(c.oid, a.attnum) IS NULL$$,
                'every column of the extension''s tables and views has a comment');
SELECT ok(obj_description('clarify_internal'::regnamespace, 'pg_namespace') IS NOT NULL,
          'clarify_internal says what it is');

-- The moved functions still work where they are called by name or by OID.
SELECT throws_like($$INSERT INTO clarify.concepts (id, kind, label) VALUES ('metric.regress_x', 'metrik', 'X')$$,
                   '%kind "metrik" is not one of metric, dimension%',
                   'a catalog trigger calling an internal helper still refuses a bad kind');
SELECT throws_like($$INSERT INTO clarify.concepts (id, kind, label, window_start, window_end)
                     VALUES ('window.regress_w', 'time_window', 'W', 'clock_timestamp()', 'now()')$$,
                   '%window_start calls a volatile function%', 'the window trigger still checks bounds through its helper');
SELECT is(clarify.purge_audit('100 years'), 0::bigint,
          'purge_audit still runs (it calls an internal helper)');

SELECT * FROM finish();
ROLLBACK;
