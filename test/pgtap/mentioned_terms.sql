-- clarify.mentioned_terms() and clarify.mentions(): the governed terms a question mentions, as
-- stored, eligible or not; callable by everyone who may read clarify.terms; and
-- pg_clarify.require_question, a superuser's setting.
BEGIN;
SELECT plan(9);

INSERT INTO clarify.concepts (id, kind, label, status, available) VALUES
    ('metric.regress_mt_mrr', 'metric', 'Monthly recurring revenue', 'approved', true),
    ('metric.regress_mt_old', 'metric', 'Old revenue', 'deprecated', true);
INSERT INTO clarify.terms VALUES ('regress mt mrr', 'metric.regress_mt_mrr'),
                                 ('regress_mt_old', 'metric.regress_mt_old');

SELECT function_privs_are('clarify', 'mentioned_terms', ARRAY['text'], 'public',
                          ARRAY['EXECUTE'], 'everyone may call mentioned_terms()');
SELECT function_privs_are('clarify', 'mentions', ARRAY['text', 'text'], 'public',
                          ARRAY['EXECUTE'], 'everyone may call mentions()');
SELECT set_eq($$SELECT clarify.mentioned_terms('Our REGRESS-MT mrr and regress_mt_old?')$$,
              ARRAY['regress mt mrr', 'regress_mt_old'],
              'terms as stored, across a hyphen and case, eligible or not');
SELECT is_empty($$SELECT clarify.mentioned_terms('regress mt mrrs')$$, 'whole words only');
SELECT ok(clarify.mentions(E'a\nb', 'A B'), 'a line break separates the words of a term');
SELECT ok(NOT clarify.mentions('a, b', 'a b'), 'a comma does not');
SELECT is(clarify.mentions(NULL, 'a'), NULL, 'no question, no answer');

SELECT is((SELECT context FROM pg_settings WHERE name = 'pg_clarify.require_question'),
          'superuser', 'require_question is a superuser setting');
SELECT is(current_setting('pg_clarify.require_question'), 'off', 'off by default');

SELECT * FROM finish();
ROLLBACK;
