# shellcheck shell=bash
# Helpers shared by scripts/test and scripts/demo: apt packages, the build, and throwaway clusters.
# Sourced, never run; the caller sets `set -euo pipefail`.

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=SCRIPTDIR/chroot.sh
source "$REPO_ROOT/scripts/chroot.sh"

# PostgreSQL 15 runs on the host (Debian 12); inside a chroot for 17 or 18 (scripts/chroot.sh),
# CLARIFY_IN_CHROOT names the version and the chroot's own package list applies.
PG_MAJOR=${CLARIFY_IN_CHROOT:-15}
if [[ -n ${CLARIFY_IN_CHROOT:-} ]]; then
    read -r -a REQUIRED_PACKAGES <<<"$(chroot_packages "$PG_MAJOR")"
else
    REQUIRED_PACKAGES=(
        build-essential g++ make cmake libgtest-dev nlohmann-json3-dev
        postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap libpq-dev
        libtap-parser-sourcehandler-pgtap-perl python3-psycopg python3-pytest
        python3-venv python3-pip python3-setuptools python3-wheel clang-format
        clang libclang-rt-14-dev clang-tidy ccache
        python3-matplotlib python3-jinja2 chromium
    )
fi

log() { printf '==> %s\n' "$*"; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}
is_root() { [[ $(id -u) -eq 0 ]]; }

# One EXIT trap for the whole script; helpers register their cleanups here, run last-in first-out.
_EXIT_HOOKS=()
on_exit() { _EXIT_HOOKS+=("$1"); }
_run_exit_hooks() {
    local rc=$? i
    for ((i = ${#_EXIT_HOOKS[@]} - 1; i >= 0; i--)); do
        eval "${_EXIT_HOOKS[i]}" || true
    done
    exit "$rc"
}
trap _run_exit_hooks EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- packages ---------------------------------------------------------------------------------

ensure_packages() {
    command -v dpkg-query >/dev/null || die "dpkg-query not found: these scripts expect Debian"
    local missing=() pkg
    for pkg in "${REQUIRED_PACKAGES[@]}"; do
        if [[ $(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null) != installed ]]; then
            missing+=("$pkg")
        fi
    done
    if ((${#missing[@]} == 0)); then
        log "packages: all ${#REQUIRED_PACKAGES[@]} required packages are installed"
    elif is_root; then
        log "packages: installing ${missing[*]}"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    else
        printf 'Missing packages. Run:\n  sudo apt-get install -y %s\n' "${missing[*]}" >&2
        exit 1
    fi
    resolve_pg_config
}

# Pin the PostgreSQL 15 tools: /usr/bin/pg_config on Debian follows the newest installed -dev.
# A PG_CONFIG already in the environment wins (e.g. a private, relocated copy of the server).
resolve_pg_config() {
    if [[ -n ${PG_CONFIG:-} ]]; then
        [[ -x $PG_CONFIG ]] || die "PG_CONFIG=$PG_CONFIG is not an executable pg_config"
    elif [[ -x /usr/lib/postgresql/$PG_MAJOR/bin/pg_config ]]; then
        PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
    else
        PG_CONFIG=$(command -v pg_config) || die "pg_config not found (postgresql-server-dev-$PG_MAJOR)"
    fi
    PG_BINDIR=$("$PG_CONFIG" --bindir)
    export PG_CONFIG PG_BINDIR
    # python3-psycopg and python3-pytest live in Debian's interpreter, not in a pyenv/venv one.
    if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
    export PYTHON
    case ":$PATH:" in
        *":$PG_BINDIR:"*) ;;
        *) export PATH="$PG_BINDIR:$PATH" ;;
    esac
}

# The server's major version (15, 17, 18).
server_major() {
    "$PG_BINDIR/postgres" -V | sed -E 's/^[^0-9]*([0-9]+).*/\1/'
}

# The setting that forces parallel plans for testing: renamed debug_parallel_query in 16.
parallel_debug_setting() {
    if (($(server_major) >= 16)); then echo debug_parallel_query; else echo force_parallel_mode; fi
}

# --- build ------------------------------------------------------------------------------------

# The pure C++ core and its unit tests (no server needed).
build_core() {
    cmake -S "$REPO_ROOT" -B "$REPO_ROOT/build" &&
        cmake --build "$REPO_ROOT/build" -j2
}

# The same core and tests built by clang with ASan + UBSan, plus the libFuzzer targets.
build_sanitized() {
    cmake -S "$REPO_ROOT" -B "$REPO_ROOT/build-asan" -DCMAKE_CXX_COMPILER=clang++ \
        -DCLARIFY_FUZZ=ON &&
        cmake --build "$REPO_ROOT/build-asan" -j2
}

# The extension itself, built with PGXS and installed into the server's directories.
build_extension() {
    [[ -n ${PG_CONFIG:-} ]] || resolve_pg_config
    make -C "$REPO_ROOT" -j2 PG_CONFIG="$PG_CONFIG" || return 1
    local libdir sharedir
    libdir=$("$PG_CONFIG" --pkglibdir)
    sharedir=$("$PG_CONFIG" --sharedir)/extension
    if ! is_root && ! { [[ -w $libdir ]] && [[ -w $sharedir ]]; }; then
        printf 'Cannot write %s or %s. Run:\n  (cd %q && sudo make install PG_CONFIG=%q)\n' \
            "$libdir" "$sharedir" "$REPO_ROOT" "$PG_CONFIG" >&2
        exit 1
    fi
    make -C "$REPO_ROOT" install PG_CONFIG="$PG_CONFIG"
}

build_install() {
    build_core && build_extension
}

# --- throwaway clusters -----------------------------------------------------------------------

# initdb refuses root, so clusters belong to postgres when we are root, else to ourselves.
cluster_owner() {
    if is_root; then echo postgres; else id -un; fi
}

# Run a command as the cluster owner, from / so an untraversable cwd (e.g. /root/...) is harmless.
as_owner() {
    if is_root; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && "$@")
    fi
}

# start_cluster DIR PORT [extra postgresql.conf lines...]
# With CLARIFY_PRELOAD=0 in the environment, pg_clarify is not added to shared_preload_libraries;
# with CLARIFY_DURABLE=1 the cluster keeps PostgreSQL's durability (fsync, synchronous_commit and
# full_page_writes on, as in production: benchmarks of durability need it).
# Sets CLUSTER_DIR (socket dir; data in $CLUSTER_DIR/data), CLUSTER_PORT; stopped at exit.
start_cluster() {
    local dir port owner
    dir=$(realpath -m "$1")
    port=$2
    shift 2
    [[ -n ${PG_BINDIR:-} ]] || resolve_pg_config
    owner=$(cluster_owner)

    # A run that was killed may have left its server behind in the same directory.
    if [[ -f $dir/data/postmaster.pid ]]; then
        as_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    is_root && chown "$owner": "$dir"
    chmod 700 "$dir"

    CLUSTER_LOG_DIR=$dir
    # The owner must reach the directory, and the socket path must fit in sockaddr_un (107 bytes).
    if ! as_owner test -w "$dir" -a -x "$dir" || ((${#dir} + ${#port} + 12 > 100)); then
        dir=$(mktemp -d /tmp/pg_clarify.XXXXXX)
        is_root && chown "$owner": "$dir"
        log "cluster: $CLUSTER_LOG_DIR is not usable by $owner as a cluster directory; using $dir"
    fi
    CLUSTER_DIR=$dir
    CLUSTER_PORT=$port
    on_exit stop_cluster

    log "cluster: initdb in $dir/data (owner $owner, port $port)"
    if ! as_owner "$PG_BINDIR/initdb" -D "$dir/data" -U postgres --auth=trust \
        --encoding=UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        return 1
    fi
    {
        echo "# throwaway cluster written by scripts/lib.sh"
        # CLARIFY_PRELOAD=0: a cluster without the library (e.g. bench/gate_tps's baseline).
        [[ ${CLARIFY_PRELOAD:-1} == 0 ]] || echo "shared_preload_libraries = 'pg_clarify'"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$dir'"
        echo "port = $port"
        if [[ ${CLARIFY_DURABLE:-0} != 1 ]]; then
            echo "fsync = off"
            echo "synchronous_commit = off"
            echo "full_page_writes = off"
        fi
        local line
        for line in "$@"; do echo "$line"; done
    } >>"$dir/data/postgresql.conf"

    if ! as_owner "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
        >/dev/null; then
        echo "cluster: server did not start; last lines of $dir/server.log:" >&2
        tail -n 30 "$dir/server.log" >&2 || true
        return 1
    fi
    local i
    for ((i = 0; i < 60; i++)); do
        "$PG_BINDIR/pg_isready" -q -h "$dir" -p "$port" -U postgres && break
        sleep 1
    done
    cluster_psql postgres -c 'SELECT 1' >/dev/null ||
        { echo "cluster: server in $dir does not accept connections" >&2; return 1; }
    log "cluster: running (socket $dir, port $port)"
}

# stop_dir DIR: stops the server of the cluster in DIR if it runs (fast, else immediate).
stop_dir() {
    [[ -f $1/data/postmaster.pid ]] || return 0
    as_owner "$PG_BINDIR/pg_ctl" -D "$1/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
        as_owner "$PG_BINDIR/pg_ctl" -D "$1/data" -m immediate stop >/dev/null 2>&1 || true
}

stop_cluster() {
    [[ -n ${CLUSTER_DIR:-} ]] || return 0
    if [[ -f $CLUSTER_DIR/data/postmaster.pid ]]; then
        stop_dir "$CLUSTER_DIR"
        log "cluster: stopped ($CLUSTER_DIR)"
    fi
    # A fallback cluster under /tmp leaves only its logs behind, in the directory that was asked for.
    if [[ $CLUSTER_DIR != "$CLUSTER_LOG_DIR" ]]; then
        cp -f "$CLUSTER_DIR"/*.log "$CLUSTER_LOG_DIR"/ 2>/dev/null || true
        rm -rf "$CLUSTER_DIR"
    fi
    CLUSTER_DIR=
}

# cluster_psql DB [psql args...]: psql as the cluster's superuser, stopping at the first error.
cluster_psql() {
    local db=$1
    shift
    "$PG_BINDIR/psql" -X -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -U postgres -d "$db" \
        -v ON_ERROR_STOP=1 "$@"
}

# Environment for clients (pg_prove, pytest) that connect to the running cluster.
cluster_env() {
    export PGHOST=$CLUSTER_DIR PGPORT=$CLUSTER_PORT PGUSER=postgres
}
