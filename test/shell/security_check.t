#!/usr/bin/env bash
# clarify.check() and the gate's own work are safe for any input from any role: rewrite rules
# that yield no query or several, a CTE chain whose plan is tiny but whose naive walk is
# exponential, an agent's function folded while someone else dry-runs its SQL, the caller's
# privileges, and utility statements over views.
# On a cluster of its own (the example creates roles).
set -uo pipefail
source "$(dirname "$0")/lib/tap.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
plan 27

db=clarify_security_check
psql_db() { "$PG_BINDIR/psql" -X -qAt -v VERBOSITY=verbose -d "$db" "$@" 2>&1; }
as_dba() { psql_db -c "$1"; }
as_agent() { psql_db -U agent "$@"; }
alive() { [[ $(as_dba 'SELECT 1') == 1 ]]; }
cleanup() { "$PG_BINDIR/dropdb" --if-exists "$db" 2>/dev/null; }
start_own_cluster security_check 55456
on_exit cleanup
cleanup
"$PG_BINDIR/createdb" "$db"
as_dba 'CREATE EXTENSION pg_clarify' >/dev/null
"$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$repo/examples/revenue.sql" >/dev/null
as_dba "GRANT CREATE ON SCHEMA public TO agent;
        CREATE VIEW sales.booked AS SELECT id, booked_amount FROM sales.orders;
        GRANT SELECT ON sales.booked TO agent;
        GRANT USAGE ON SCHEMA sales TO dba" >/dev/null

# 1. Rules that rewrite a statement into no query or several.
out=$(as_agent <<'SQL'
CREATE TEMP TABLE t (a int);
CREATE RULE r_ins AS ON INSERT TO t DO INSTEAD NOTHING;
CREATE RULE r_upd AS ON UPDATE TO t DO INSTEAD NOTHING;
CREATE RULE r_del AS ON DELETE TO t DO INSTEAD NOTHING;
CREATE TEMP TABLE t2 (a int);
CREATE RULE r_also AS ON INSERT TO t2 DO ALSO SELECT sum(booked_amount) FROM sales.orders;
SELECT 'ins ' || (clarify.check('INSERT INTO t VALUES (1)') ->> 'decision');
SELECT 'upd ' || (clarify.check('UPDATE t SET a = 2') ->> 'decision');
SELECT 'del ' || (clarify.check('DELETE FROM t') ->> 'decision');
SELECT 'copy ' || (clarify.check('COPY (INSERT INTO t VALUES (1)) TO STDOUT') ->> 'decision');
SELECT 'also ' || (clarify.check('INSERT INTO t2 VALUES (1)') ->> 'state');
SELECT 'alsocopy ' || (clarify.check('COPY (INSERT INTO t2 VALUES (1)) TO STDOUT') ->> 'state');
SQL
)
for shape in ins upd del copy; do
    contains "check() of $shape under a DO INSTEAD NOTHING rule answers" "$out" "$shape allowed"
done
contains "check() of an INSERT with a DO ALSO rule decides the rule's read too" "$out" "also AMBIGUOUS"
contains "the same through COPY (INSERT ...) TO" "$out" "alsocopy AMBIGUOUS"
check "the server is still up" alive

# 2. N materialized CTEs, each the union of two references to the previous one.
chain() {
    local n=$1 sql="WITH a0 AS MATERIALIZED (SELECT booked_amount FROM sales.orders)" k
    for ((k = 1; k <= n; k++)); do
        sql+=", a$k AS MATERIALIZED (SELECT * FROM a$((k - 1)) UNION ALL SELECT * FROM a$((k - 1)))"
    done
    echo "$sql SELECT sum(booked_amount) FROM a$n"
}
sql40=$(chain 40)
out=$(timeout 60 "$PG_BINDIR/psql" -X -qAt -v VERBOSITY=verbose -d "$db" -U agent \
    -c "SET statement_timeout = '20s'" -c "$sql40" 2>&1)
contains "a 40-link CTE chain is decided (QC001), not walked 2^40 times" "$out" "QC001"
out=$(timeout 60 "$PG_BINDIR/psql" -X -qAt -d "$db" -U agent -c "SET statement_timeout = '20s'" \
    -c "SELECT clarify.check(\$q\$$sql40\$q\$) ->> 'state'" 2>&1)
contains "check() decides it too" "$out" "AMBIGUOUS"

# 3. An app or a DBA dry-running an agent's SQL runs none of the agent's code.
as_agent <<'SQL' >/dev/null
CREATE FUNCTION public.do_confirm() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM clarify.confirm('q_pwn', 'revenue', 'metric.booked_revenue', 'agent', 'user:mallory');
  RETURN 1;
END$$;
CREATE FUNCTION public.pwn() RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$BEGIN RETURN public.do_confirm(); END$$;
CREATE TABLE public.notes (note text);
CREATE FUNCTION public.do_write() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.notes VALUES ('planned'); RETURN 1; END$$;
CREATE FUNCTION public.scribble() RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$BEGIN RETURN public.do_write(); END$$;
SQL
out=$(psql_db -U app -c "SELECT clarify.check('SELECT public.pwn()')")
contains "the app's check() refuses to fold the agent's function" "$out" "does not run public.pwn()"
out=$(as_dba "SELECT clarify.check('SELECT public.pwn()')")
contains "so does a superuser's" "$out" "does not run public.pwn()"
equals "no approval was created" "$(as_dba "SELECT count(*) FROM clarify.approvals WHERE question_id = 'q_pwn'")" 0
out=$(as_agent -c "SELECT clarify.check('SELECT public.scribble()')")
contains "the agent's own check() runs no statement of its own function" "$out" "runs no statement while planning"
equals "and it wrote nothing" "$(as_dba 'SELECT count(*) FROM public.notes')" 0

# 4. The caller's privileges apply before anything is reported.
out=$(psql_db -U dba -c "SELECT clarify.check('SELECT booked_amount FROM sales.orders')")
contains "check() of a table the caller cannot read is refused" "$out" "permission denied for table orders"
out=$(psql_db -U dba -c "SELECT clarify.check('COPY sales.orders TO STDOUT')")
contains "also through COPY" "$out" "permission denied for table orders"

# 5. Utility statements that run a query over a view.
for stmt in "EXPLAIN ANALYZE SELECT * FROM sales.booked" \
    "CREATE TABLE public.copy_of AS SELECT * FROM sales.booked" \
    "DECLARE c CURSOR FOR SELECT booked_amount FROM sales.booked"; do
    out=$(as_agent -c "SELECT clarify.check(\$q\$$stmt\$q\$) ->> 'state'")
    equals "check() of ${stmt%% *} ${stmt#* } decides the view's column" "$out" "AMBIGUOUS"
done
# 6. Review findings: code reached through caches, built-in functions that run SQL, COPY's own
# privilege check, prepared statements.
as_agent <<'SQL' >/dev/null
CREATE FUNCTION public.sd(float8, float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF current_user <> 'agent' THEN
    RAISE NOTICE 'sd ran as %', current_user;
    PERFORM sum(booked_amount) FROM sales.orders;
  END IF;
  RETURN $1 - $2;
END $$;
CREATE TYPE public.fr AS RANGE (subtype = float8, subtype_diff = public.sd);
CREATE TABLE public.rt (r public.fr);
INSERT INTO public.rt SELECT public.fr(g, g + 10) FROM generate_series(1, 1000) g;
ANALYZE public.rt;
SQL
out=$(psql_db <<'SQL'
SELECT r FROM public.rt LIMIT 1;
ANALYZE;
SELECT clarify.check($$SELECT * FROM public.rt WHERE r && public.fr(5, 7)$$) ->> 'decision';
SQL
)
[[ $out != *"sd ran as postgres"* ]] &&
    pass "an agent's function cached by the DBA's session never runs with the DBA's rights" ||
    fail "an agent's function cached by the DBA's session never runs with the DBA's rights" "$out"
out=$(as_dba "SELECT clarify.check(\$q\$SELECT id FROM sales.invoices
    WHERE customer_country = (table_to_xml('sales.orders', false, true, '')::text)\$q\$)")
contains "check() runs a built-in function it folds with no privileges of the caller's" "$out" "permission denied"
[[ $out != *"<booked_amount>"* ]] && pass "and shows no governed value" || fail "and shows no governed value" "$out"
out=$(as_agent -c "SELECT clarify.check('COPY sales.orders TO STDOUT') ->> 'state'")
equals "check() of COPY relation TO answers, as the agent" "$out" "AMBIGUOUS"
equals "and is not a decision of its own" \
    "$(as_dba "SELECT count(*) FROM clarify.audit WHERE statement LIKE '%clarify.check(''COPY%'")" 0
out=$(as_agent <<'SQL'
PREPARE p AS SELECT booked_amount FROM sales.orders;
SELECT 'execute ' || (clarify.check('EXECUTE p') ->> 'state');
SELECT 'ctas ' || (clarify.check('CREATE TABLE public.x AS EXECUTE p') ->> 'state');
SELECT 'explain ' || (clarify.check('EXPLAIN ANALYZE EXECUTE p') ->> 'state');
SQL
)
for shape in execute ctas explain; do
    contains "check() of a prepared statement ($shape) decides its query" "$out" "$shape AMBIGUOUS"
done
finish
