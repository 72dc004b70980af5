# shellcheck shell=bash
# Clusters for the shell tests: each test that needs a server starts its own (start_test_cluster,
# start_own_cluster, start_replica_primary), so tests run in parallel (prove -j2) in any order.
# Sourced by tap.sh. The clusters come from scripts/lib.sh, as for scripts/test; PG_BINDIR from
# pg_config unless given.
# shellcheck source=SCRIPTDIR/../../../scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
[[ -n ${PG_BINDIR:-} ]] || resolve_pg_config
as_cluster_owner() { as_owner "$@"; }
# The setting that forces parallel plans for testing (force_parallel_mode until 15).
PARALLEL_DEBUG=$(parallel_debug_setting)

# start_test_cluster NAME PORT [postgresql.conf lines...]: a throwaway cluster in a new directory
# ($dir, $port), on a Unix socket only, without the library unless a line preloads it; stopped
# and removed at exit, after the test's own before_cluster_stop if it defines one.
start_test_cluster() {
    local name=$1 out
    port=$2
    shift 2
    dir=$(mktemp -d "/tmp/pg_clarify_$name.XXXXXX")
    out=$(mktemp)
    if ! CLARIFY_PRELOAD=0 start_cluster "$dir" "$port" "$@" >"$out" 2>&1; then
        echo "Bail out! the test cluster did not start"
        sed 's/^/# /' "$out" >&2
        rm -f "$out"
        exit 1
    fi
    rm -f "$out"
    on_exit _stop_test_cluster
}
# Stopped at once, as a crash would; the server log is kept (its path printed) when a check failed.
# keep_cluster=1 leaves it running instead, and says how to reach it and stop it.
_stop_test_cluster() {
    declare -F before_cluster_stop >/dev/null && before_cluster_stop
    [[ -n ${dir:-} && -d $dir ]] || return 0
    if [[ ${keep_cluster:-0} == 1 ]]; then
        echo "# kept: psql -h $dir -p $port -U postgres; stop: pg_ctl -D $dir/data stop" >&2
        CLUSTER_DIR=
        return 0
    fi
    as_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
    stop_cluster >/dev/null
    _check_no_crash "$dir/server.log"
    if ((_tap_failed > 0)); then
        echo "# server log: $dir/server.log" >&2
        rm -rf "$dir/data"
    else
        rm -rf "$dir"
    fi
    dir=
}
# start_own_cluster NAME PORT [postgresql.conf lines...]: start_test_cluster with the library
# preloaded, the libpq environment (PGHOST, PGPORT, PGUSER=postgres) pointing at it.
start_own_cluster() {
    local name=$1 p=$2
    shift 2
    start_test_cluster "$name" "$p" "shared_preload_libraries = 'pg_clarify'" "$@"
    export PGHOST=$dir PGPORT=$port PGUSER=postgres
}
# A server the test did not crash on purpose (crashes_expected=1 says it did) must have logged
# no backend killed by a signal: else one more, failing, TAP line fails the file (see crash_free.t).
_check_no_crash() {
    [[ ${crashes_expected:-0} == 1 || ! -f $1 ]] && return 0
    local crashes
    crashes=$(grep -E 'terminated by signal|terminating any other active server processes' "$1")
    [[ -z $crashes ]] && return 0
    fail "no backend of the test's server was killed by a signal" "$crashes"
}
# psql_as ROLE [psql args...]: psql on that cluster's postgres database, quiet and unaligned.
psql_as() {
    local role=$1
    shift
    "$PG_BINDIR/psql" -X -q -At -h "$dir" -p "$port" -U "$role" -d postgres "$@" 2>&1
}

# start_test_standby PORT [postgresql.conf lines...]: a streaming hot standby of the test cluster
# ($sdir, $sport), cloned with pg_basebackup -R over the primary's socket; it preloads the library
# when the primary does. Stopped and removed at exit, before the primary.
start_test_standby() {
    sport=$1
    shift
    sdir=$(mktemp -d "/tmp/pg_clarify_standby.XXXXXX")
    is_root && chown "$(cluster_owner)": "$sdir"
    chmod 700 "$sdir"
    if ! as_owner "$PG_BINDIR/pg_basebackup" -h "$dir" -p "$port" -U postgres -D "$sdir/data" \
        -R -X stream -c fast >"$sdir/basebackup.log" 2>&1; then
        echo "Bail out! pg_basebackup failed"
        sed 's/^/# /' "$sdir/basebackup.log" >&2
        exit 1
    fi
    {
        echo "# standby written by test/shell/lib/cluster.sh"
        echo "unix_socket_directories = '$sdir'"
        echo "port = $sport"
        echo "hot_standby = on"
        local line
        for line in "$@"; do echo "$line"; done
    } | as_owner tee -a "$sdir/data/postgresql.conf" >/dev/null
    on_exit _stop_test_standby
    if ! as_owner "$PG_BINDIR/pg_ctl" -D "$sdir/data" -l "$sdir/server.log" -w -t 60 start \
        >/dev/null; then
        echo "Bail out! the standby did not start"
        tail -n 30 "$sdir/server.log" | sed 's/^/# /' >&2
        exit 1
    fi
}
# start_replica_primary NAME PORT "GRANTED ROLE ..." ["OTHER ROLE ..."]: a primary for the
# read-replica tests: cluster_name regress_primary, the agent regress_replica_agent governed over
# shop.orders.booked_amount (one approved concept, so its reads are allowed), the login roles given,
# the first list granted clarify.audit_ingest, and replication over the socket trusted.
start_replica_primary() {
    local granted=$3 others=${4:-} role roles=""
    start_test_cluster "$1" "$2" "shared_preload_libraries = 'pg_clarify'" \
        "cluster_name = 'regress_primary'" "wal_level = replica" "max_wal_senders = 4"
    for role in regress_replica_agent $granted $others; do roles+="CREATE ROLE $role LOGIN; "; done
    psql_as postgres -v ON_ERROR_STOP=1 -c "
      $roles
      CREATE EXTENSION pg_clarify;
      GRANT EXECUTE ON FUNCTION clarify.audit_ingest(text, bytea) TO ${granted// /, };
      CREATE SCHEMA shop;
      CREATE TABLE shop.orders AS SELECT g AS id, g * 1.5 AS booked_amount FROM generate_series(1, 100) g;
      GRANT USAGE ON SCHEMA shop TO regress_replica_agent;
      GRANT SELECT ON shop.orders TO regress_replica_agent;
      INSERT INTO clarify.concepts (id, kind, label, status) VALUES ('metric.booked', 'metric', 'Booked revenue', 'approved');
      INSERT INTO clarify.concept_columns VALUES ('metric.booked', 'shop.orders', 'booked_amount');
      SELECT clarify.govern_role('regress_replica_agent');" >/dev/null ||
        { echo "Bail out! the primary's fixture could not be created"; exit 1; }
    echo "local replication all trust" | as_owner tee -a "$dir/data/pg_hba.conf" >/dev/null
    psql_as postgres -c "SELECT pg_reload_conf()" >/dev/null
}
_stop_test_standby() {
    [[ -n ${sdir:-} && -d $sdir ]] || return 0
    as_owner "$PG_BINDIR/pg_ctl" -D "$sdir/data" -m immediate stop >/dev/null 2>&1
    if ((_tap_failed > 0)); then
        echo "# standby log: $sdir/server.log" >&2
        rm -rf "$sdir/data"
    else
        rm -rf "$sdir"
    fi
    sdir=
}
# pq SQL / sq SQL: one statement as postgres on the primary (the test cluster) / the standby,
# stopping at the first error.
pq() { psql_as postgres -v ON_ERROR_STOP=1 -c "$1"; }
sq() { standby_psql_as postgres -v ON_ERROR_STOP=1 -c "$1"; }
# standby_psql_as ROLE [psql args...]: psql on the standby's postgres database.
standby_psql_as() {
    local role=$1
    shift
    "$PG_BINDIR/psql" -X -q -At -h "$sdir" -p "$sport" -U "$role" -d postgres "$@" 2>&1
}
# wait_for_replay: until the standby has replayed everything the primary has written so far.
wait_for_replay() {
    local lsn i
    lsn=$(psql_as postgres -c 'SELECT pg_current_wal_insert_lsn()')
    for ((i = 0; i < 300; i++)); do
        [[ $(standby_psql_as postgres -c \
            "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn") == t ]] && return 0
        sleep 0.1
    done
    return 1
}
