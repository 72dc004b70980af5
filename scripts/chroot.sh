# shellcheck shell=bash
# PostgreSQL 17 and 18 for the test suites: Debian ships them in trixie and sid only, built against
# a newer glibc than Debian 12's, so each runs in a debootstrap'ed minbase chroot kept in a cache
# outside the tree. Sourced by scripts/lib.sh; the caller sets `set -euo pipefail`.

CHROOT_CACHE=${CLARIFY_CHROOT_CACHE:-/var/cache/pg_clarify}
CHROOT_MIRROR=${CLARIFY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Where each chroot keeps its copy of the tree.
CHROOT_TREE=/work/pg_clarify

# chroot_suite MAJOR: the Debian suite that ships postgresql-MAJOR.
chroot_suite() {
    case $1 in
        15) echo bookworm ;;
        17) echo trixie ;;
        18) echo sid ;;
        *) die "no Debian suite ships PostgreSQL $1 here: 15, 17 or 18" ;;
    esac
}

chroot_dir() { echo "$CHROOT_CACHE/chroot-$1"; }

# chroot_packages MAJOR: what the suites need inside; clang for the ASan/fuzz build and the tidy
# check, which reads the server headers of this version. No clang-format: the formatting is
# checked once, with the host's pinned version (format.t).
chroot_packages() {
    local v=$1
    echo build-essential g++ make cmake libgtest-dev nlohmann-json3-dev \
        "postgresql-$v" "postgresql-server-dev-$v" "postgresql-$v-pgtap" libpq-dev \
        libtap-parser-sourcehandler-pgtap-perl python3-psycopg python3-pytest python3-venv \
        python3-pip python3-setuptools python3-wheel clang clang-tidy libclang-rt-dev perl \
        procps locales-all ca-certificates
}

# ensure_chroot MAJOR: the suites' chroot, built when missing or when its package list changed.
ensure_chroot() {
    # shellcheck disable=SC2046
    make_chroot "$(chroot_dir "$1")" "$(chroot_suite "$1")" $(chroot_packages "$1")
}

# make_chroot DIR SUITE PACKAGES...: a minbase SUITE in DIR with PACKAGES, unless DIR already has
# exactly that package list.
make_chroot() {
    local dir=$1 suite=$2 stamp want
    shift 2
    stamp=$dir/.pg_clarify-packages
    want="$*"
    if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
        log "chroot: $dir is ready ($suite)"
        return 0
    fi
    is_root || die "only root can build the chroot in $dir"
    command -v debootstrap >/dev/null || {
        log "chroot: installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap ||
            { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; }
    }
    chroot_umount "$dir"
    # Never delete through a mount that is still there (/dev is the host's).
    if grep -q " $dir/" /proc/mounts; then die "$dir still has mounts; unmount them first"; fi
    rm -rf "$dir"
    mkdir -p "$CHROOT_CACHE"
    log "chroot: debootstrap $suite minbase into $dir"
    debootstrap --variant=minbase "$suite" "$dir" "$CHROOT_MIRROR" ||
        die "debootstrap $suite failed"
    # No services start inside, and postgresql-common creates no default cluster.
    printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
    chmod 755 "$dir/usr/sbin/policy-rc.d"
    mkdir -p "$dir/etc/postgresql-common"
    echo 'create_main_cluster = false' >"$dir/etc/postgresql-common/createcluster.conf"
    # The archive's Release files expire a week after signing; a mirror or snapshot that lags
    # (this machine's date is ahead of the archive it reaches) would otherwise refuse to update.
    echo 'Acquire::Check-Valid-Until "false";' >"$dir/etc/apt/apt.conf.d/99pg-clarify"
    # A released suite gets its point and security updates, as a server running it would.
    if [[ $suite != sid ]]; then
        {
            echo "deb $CHROOT_MIRROR $suite-updates main"
            echo "deb ${CHROOT_MIRROR%/debian}/debian-security $suite-security main"
        } >>"$dir/etc/apt/sources.list"
    fi
    chroot_apt "$dir" "$@" || die "installing the packages in $dir failed"
    echo "$want" >"$stamp"
    log "chroot: $dir ready ($(du -sh "$dir" | cut -f1))"
}

# chroot_apt DIR PACKAGES...: installs PACKAGES (and nothing they only recommend) in DIR.
chroot_apt() {
    local dir=$1 rc=0
    shift
    chroot_mount "$dir"
    chroot "$dir" env DEBIAN_FRONTEND=noninteractive sh -c \
        "apt-get update -q && apt-get install -y -q --no-install-recommends $* && apt-get clean" ||
        rc=$?
    chroot_umount "$dir"
    return "$rc"
}

# chroot_mount DIR: /proc, /dev, /dev/pts, /dev/shm and resolv.conf.
chroot_mount() {
    local dir=$1
    mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
    mountpoint -q "$dir/dev" || mount --bind /dev "$dir/dev"
    mountpoint -q "$dir/dev/pts" || mount --bind /dev/pts "$dir/dev/pts"
    mountpoint -q "$dir/dev/shm" || mount -t tmpfs shm "$dir/dev/shm"
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

chroot_umount() {
    local dir=$1 m
    [[ -d $dir ]] || return 0
    for m in /dev/shm /dev/pts /dev /proc; do
        if mountpoint -q "$dir$m" 2>/dev/null; then umount -l "$dir$m" || true; fi
    done
}

# sync_tree SRC DEST: DEST's sources become SRC's. PGXS builds its objects next to the sources, so
# each version builds in its own copy; the objects and build directories kept there let make
# rebuild only what changed. A file whose content differs is copied with a new time, so make
# rebuilds from it even when SRC's copy is older than the object.
sync_tree() {
    local src=$1 dest=$2 stage f
    stage=$(mktemp -d)
    mkdir -p "$dest"
    tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./.test --exclude=./tmp_check \
        --exclude=./results --exclude='*.o' --exclude='*.d' --exclude='*.so' \
        --exclude=__pycache__ -cf - . | tar -C "$stage" -xf -
    while IFS= read -r -d '' f; do
        [[ -e $stage/$f ]] || rm -f "${dest:?}/$f"
    done < <(cd "$dest" && find . \( -path './build*' -o -path ./tmp_check -o -path ./.test \) \
        -prune -o -type f ! -name '*.o' ! -name '*.d' ! -name '*.so' -print0)
    while IFS= read -r -d '' f; do
        if ! cmp -s "$stage/$f" "$dest/$f"; then
            mkdir -p "$(dirname "$dest/$f")"
            cp "$stage/$f" "$dest/$f"
        fi
    done < <(cd "$stage" && find . -type f -print0)
    rm -rf "$stage"
    chmod -R a+rX "$dest"
}

# run_in_chroot MAJOR ARGS...: runs scripts/test ARGS inside the chroot of MAJOR on a copy of this
# tree; its logs come back to build/test-logs-pgMAJOR.
run_in_chroot() {
    local v=$1 dir rc=0
    shift
    if ! is_root; then
        printf 'The PostgreSQL %s suites run in a chroot, which needs root. Run:\n' "$v" >&2
        printf '  sudo %q --pg %s\n' "$REPO_ROOT/scripts/test" "$v" >&2
        exit 1
    fi
    ensure_chroot "$v"
    dir=$(chroot_dir "$v")
    log "chroot: PostgreSQL $v: copying the tree to $dir$CHROOT_TREE"
    sync_tree "$REPO_ROOT" "$dir$CHROOT_TREE"
    chroot_mount "$dir"
    on_exit "chroot_umount '$dir'"
    chroot "$dir" env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root \
        LANG=C.UTF-8 CLARIFY_IN_CHROOT="$v" CLARIFY_FUZZ_SECONDS="${CLARIFY_FUZZ_SECONDS:-}" \
        CLARIFY_SUITES="${CLARIFY_SUITES:-}" CLARIFY_SHELL_TESTS="${CLARIFY_SHELL_TESTS:-}" \
        CLARIFY_TIDY_CACHE="${CLARIFY_TIDY_CACHE:-}" \
        PG_CONFIG="/usr/lib/postgresql/$v/bin/pg_config" \
        "$CHROOT_TREE/scripts/test" "$@" || rc=$?
    chroot_umount "$dir"
    rm -rf "$REPO_ROOT/build/test-logs-pg$v"
    mkdir -p "$REPO_ROOT/build"
    cp -r "$dir$CHROOT_TREE/build/test-logs" "$REPO_ROOT/build/test-logs-pg$v" 2>/dev/null || true
    cp "$dir$CHROOT_TREE/tmp_check/regression.diffs" "$REPO_ROOT/build/test-logs-pg$v/" \
        2>/dev/null || true
    return "$rc"
}
