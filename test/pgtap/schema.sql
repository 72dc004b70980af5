-- The catalog's shape as the library and pg_dump rely on it: names, types, keys, triggers,
-- function signatures and attributes, and the tables pg_dump must carry.
BEGIN;
SELECT plan(92);

-- Tables and their columns (the library reads these names).
SELECT has_schema('clarify');
SELECT has_table('clarify', 'concepts', 'concepts exists');
SELECT has_table('clarify', 'concept_columns', 'concept_columns exists');
SELECT has_table('clarify', 'terms', 'terms exists');
SELECT has_table('clarify', 'defaults', 'defaults exists');
SELECT has_table('clarify', 'approvals', 'approvals exists');
SELECT has_table('clarify', 'agent_roles', 'agent_roles exists');
SELECT has_table('clarify', 'unique_keys', 'unique_keys exists');

SELECT columns_are('clarify', 'concepts',
    ARRAY['id', 'kind', 'label', 'description', 'owner', 'status', 'available', 'version',
          'aliases', 'valid_from', 'valid_until', 'window_start', 'window_end', 'additivity',
          'allowed_aggregates', 'segment_relation', 'segment_predicate', 'unit',
          'window_time_zone']);
SELECT col_type_is('clarify', 'concepts', 'segment_relation', 'regclass', 'concepts.segment_relation is regclass');
SELECT col_type_is('clarify', 'concepts', 'segment_predicate', 'text', 'concepts.segment_predicate is text');
SELECT col_type_is('clarify', 'concepts', 'window_start', 'text', 'concepts.window_start is text');
SELECT col_type_is('clarify', 'concepts', 'window_end', 'text', 'concepts.window_end is text');
SELECT col_type_is('clarify', 'concepts', 'allowed_aggregates', 'text[]', 'concepts.allowed_aggregates is text[]');
SELECT col_type_is('clarify', 'concepts', 'available', 'boolean', 'concepts.available is boolean');
SELECT col_type_is('clarify', 'concepts', 'version', 'integer', 'concepts.version is integer');
SELECT col_type_is('clarify', 'concepts', 'aliases', 'text[]', 'concepts.aliases is text[]');
SELECT col_type_is('clarify', 'concepts', 'valid_from', 'timestamp with time zone', 'concepts.valid_from is timestamp with time zone');
SELECT col_type_is('clarify', 'concepts', 'valid_until', 'timestamp with time zone', 'concepts.valid_until is timestamp with time zone');
SELECT col_is_pk('clarify', 'concepts', 'id', 'concepts is keyed by id');

SELECT columns_are('clarify', 'concept_columns',
    ARRAY['concept_id', 'relation', 'column_name', 'attnum', 'time_column', 'requires_time_range',
          'snapshot_column', 'schema_name', 'table_name', 'unit_column']);
SELECT col_type_is('clarify', 'concept_columns', 'time_column', 'name', 'concept_columns.time_column is name');
SELECT col_type_is('clarify', 'concept_columns', 'requires_time_range', 'boolean', 'concept_columns.requires_time_range is boolean');
SELECT col_default_is('clarify', 'concept_columns', 'requires_time_range', 'false', 'a period is not required unless said');
SELECT col_type_is('clarify', 'concept_columns', 'relation', 'regclass', 'concept_columns.relation is regclass');
SELECT col_type_is('clarify', 'concept_columns', 'column_name', 'name', 'concept_columns.column_name is name');
SELECT col_is_pk('clarify', 'concept_columns', ARRAY['concept_id', 'relation', 'column_name'], 'concept_columns is keyed by (concept_id, relation, column_name)');
SELECT fk_ok('clarify', 'concept_columns', 'concept_id', 'clarify', 'concepts', 'id');

SELECT columns_are('clarify', 'terms', ARRAY['term', 'concept_id', 'impact']);
SELECT col_default_is('clarify', 'terms', 'impact', 'high', 'a term has high impact unless said');
SELECT col_is_pk('clarify', 'terms', ARRAY['term', 'concept_id'], 'terms is keyed by (term, concept_id)');
SELECT fk_ok('clarify', 'terms', 'concept_id', 'clarify', 'concepts', 'id');

SELECT columns_are('clarify', 'defaults',
    ARRAY['id', 'term', 'concept_id', 'applies_to', 'approved_by', 'approved_at', 'valid_until',
          'applies_to_oid', 'concept_version']);
SELECT col_type_is('clarify', 'defaults', 'id', 'bigint', 'defaults.id is bigint');
SELECT col_type_is('clarify', 'defaults', 'applies_to', 'text', 'defaults.applies_to is a role name');
SELECT col_is_null('clarify', 'defaults', 'applies_to', 'defaults.applies_to may be NULL');
SELECT col_is_pk('clarify', 'defaults', 'id', 'defaults is keyed by id');
SELECT fk_ok('clarify', 'defaults', 'concept_id', 'clarify', 'concepts', 'id');
SELECT fk_ok('clarify', 'defaults', ARRAY['term', 'concept_id'],
             'clarify', 'terms', ARRAY['term', 'concept_id']);

SELECT columns_are('clarify', 'approvals',
    ARRAY['id', 'question_id', 'term', 'concept_id', 'granted_to', 'confirmed_by', 'created_at',
          'expires_at', 'revoked_at', 'question', 'granted_to_oid', 'concept_version']);
SELECT col_type_is('clarify', 'approvals', 'id', 'bigint', 'approvals.id is bigint');
SELECT col_type_is('clarify', 'approvals', 'granted_to', 'text', 'approvals.granted_to is a role name');
SELECT col_is_null('clarify', 'approvals', 'term', 'approvals.term may be NULL');
SELECT col_is_null('clarify', 'approvals', 'question', 'approvals.question may be NULL');
SELECT col_not_null('clarify', 'approvals', 'expires_at', 'approvals.expires_at is NOT NULL');
SELECT col_is_pk('clarify', 'approvals', 'id', 'approvals is keyed by id');
SELECT fk_ok('clarify', 'approvals', 'concept_id', 'clarify', 'concepts', 'id');
SELECT has_index('clarify', 'approvals', 'approvals_question_id_idx', 'question_id',
                 'approvals are found by question');
SELECT has_index('clarify', 'audit_batches', 'audit_batches_origin_idx',
                 ARRAY['origin', 'last_decided_at'],
                 'a standby''s batches are found by origin and time (audit_ingest)');

SELECT columns_are('clarify', 'agent_roles', ARRAY['agent_role', 'added_at', 'role_oid']);
SELECT col_type_is('clarify', 'agent_roles', 'agent_role', 'text', 'agent_roles.agent_role is a role name');
SELECT col_is_pk('clarify', 'agent_roles', 'agent_role', 'agent_roles is keyed by agent_role');
SELECT columns_are('clarify', 'unique_keys', ARRAY['relation', 'columns', 'approved_by', 'note', 'approved_at']);
SELECT col_type_is('clarify', 'unique_keys', 'columns', 'name[]', 'unique_keys.columns is name[]');
SELECT columns_are('clarify', 'entities', ARRAY['relation', 'name_column', 'key_column', 'label',
    'detail_columns', 'match', 'max_options', 'approved_by']);
SELECT col_type_is('clarify', 'entities', 'detail_columns', 'name[]', 'entities.detail_columns is name[]');

-- Every catalog table tells the sessions' caches when it changed, whatever the statement.
SELECT is(
    (SELECT array_agg(c.relname::text ORDER BY c.relname)
       FROM pg_trigger t
       JOIN pg_class c ON c.oid = t.tgrelid
      WHERE t.tgfoid = 'clarify_internal.catalog_changed()'::regprocedure
        AND t.tgtype & 1 = 0          -- FOR EACH STATEMENT
        AND t.tgtype & 2 = 0          -- AFTER
        AND t.tgtype & 4 <> 0         -- INSERT
        AND t.tgtype & 8 <> 0         -- DELETE
        AND t.tgtype & 16 <> 0        -- UPDATE
        AND t.tgtype & 32 <> 0),      -- TRUNCATE
    ARRAY['agent_roles', 'approvals', 'concept_columns', 'concepts', 'defaults', 'entities', 'terms', 'unique_keys'],
    'catalog_changed fires after every kind of write, once per statement, on all eight tables');

-- Functions: signatures, return types, volatility, and who runs them with which rights.
SELECT function_returns('clarify_internal', 'catalog_changed', ARRAY[]::text[], 'trigger');
SELECT function_lang_is('clarify_internal', 'catalog_changed', ARRAY[]::text[], 'c');
SELECT function_returns('clarify', 'resolve', ARRAY['text', 'text'], 'jsonb');
SELECT function_lang_is('clarify', 'resolve', ARRAY['text', 'text'], 'c');
SELECT volatility_is('clarify', 'resolve', ARRAY['text', 'text'], 'stable');
SELECT is((SELECT pronargdefaults FROM pg_proc
            WHERE oid = 'clarify.resolve(text, text)'::regprocedure)::int, 1,
          'resolve: question_id is optional');
SELECT function_returns('clarify', 'check', ARRAY['text'], 'jsonb');
SELECT function_lang_is('clarify', 'check', ARRAY['text'], 'c');
SELECT volatility_is('clarify', 'check', ARRAY['text'], 'volatile');
SELECT is_strict('clarify', 'check', ARRAY['text']);
SELECT function_returns('clarify', 'last_decision', ARRAY[]::text[], 'jsonb');
SELECT function_lang_is('clarify', 'last_decision', ARRAY[]::text[], 'c');
SELECT volatility_is('clarify', 'last_decision', ARRAY[]::text[], 'volatile');
SELECT function_returns('clarify_internal', 'window_bound_check', ARRAY['text', 'text', 'text'], 'void');
SELECT function_returns('clarify', 'gated', ARRAY[]::text[], 'boolean');
SELECT function_lang_is('clarify', 'gated', ARRAY[]::text[], 'c');
SELECT volatility_is('clarify', 'gated', ARRAY[]::text[], 'stable');
SELECT function_returns('clarify', 'eligible', ARRAY['clarify.concepts'], 'boolean');

SELECT function_returns('clarify', 'confirm',
    ARRAY['text', 'text', 'text', 'regrole', 'text', 'interval', 'text'], 'bigint');
SELECT is_definer('clarify', 'confirm', ARRAY['text', 'text', 'text', 'regrole', 'text', 'interval', 'text']);
SELECT is((SELECT count(*)::int FROM pg_proc WHERE proname = 'confirm'
            AND pronamespace = 'clarify'::regnamespace), 1,
          'there is one confirm, so calls and GRANT ... ON FUNCTION clarify.confirm are unambiguous');
SELECT is((SELECT proconfig FROM pg_proc
            WHERE oid = 'clarify.confirm(text, text, text, regrole, text, interval, text)'::regprocedure),
          ARRAY['search_path=pg_catalog, pg_temp'],
          'confirm runs with a fixed search_path');
SELECT is((SELECT pg_get_function_arguments(
                      'clarify.confirm(text, text, text, regrole, text, interval, text)'::regprocedure)),
          'question_id text, term text, concept text, granted_to regrole, confirmed_by text, expires_in interval DEFAULT ''01:00:00''::interval, question text DEFAULT NULL::text',
          'confirm: argument names, expiry defaults to one hour, no question text by default');
SELECT function_returns('clarify', 'revoke', ARRAY['bigint'], 'void');
SELECT is_definer('clarify', 'revoke', ARRAY['bigint']);
SELECT is((SELECT proconfig FROM pg_proc WHERE oid = 'clarify.revoke(bigint)'::regprocedure),
          ARRAY['search_path=pg_catalog, pg_temp'],
          'revoke runs with a fixed search_path');
SELECT function_returns('clarify', 'govern_role', ARRAY['regrole'], 'void');
SELECT isnt_definer('clarify', 'govern_role', ARRAY['regrole']);
SELECT function_returns('clarify', 'code_privileges', ARRAY['regrole'], 'setof record');
SELECT isnt_definer('clarify', 'code_privileges', ARRAY['regrole']);
SELECT function_returns('clarify', 'release_role', ARRAY['regrole'], 'void');
SELECT isnt_definer('clarify', 'release_role', ARRAY['regrole']);

-- pg_dump keeps every row a DBA or user entered, and the id sequences with them.
SELECT set_eq(
    $$SELECT unnest(extconfig)::regclass::text FROM pg_extension WHERE extname = 'pg_clarify'$$,
    ARRAY['clarify.concepts', 'clarify.concept_columns', 'clarify.terms', 'clarify.defaults',
          'clarify.approvals', 'clarify.agent_roles', 'clarify.defaults_id_seq',
          'clarify.approvals_id_seq', 'clarify.audit_batches', 'clarify.audit_batches_batch_id_seq', 'clarify.audit_texts',
          'clarify.audit_shapes', 'clarify.audit_purges', 'clarify.audit_purges_id_seq',
          'clarify.audit_notes', 'clarify.unique_keys', 'clarify.audit_origins',
          'clarify.eval_cases', 'clarify.entities'],
    'every catalog and audit table and sequence is dumped');
SELECT is((SELECT bool_and(c = '') FROM pg_extension, unnest(extcondition) AS c
            WHERE extname = 'pg_clarify'),
          true, 'and dumped whole (no filter)');

-- Every catalog object belongs to the extension, so DROP EXTENSION leaves nothing behind.
SELECT is((SELECT count(*)::int FROM pg_class c
            WHERE c.relnamespace = 'clarify'::regnamespace
              AND c.relkind IN ('r', 'S')
              AND NOT EXISTS (SELECT 1 FROM pg_depend d
                               WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                 AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e')),
          0, 'every table and sequence in clarify is a member of the extension');

SELECT * FROM finish();
ROLLBACK;
