#!/usr/bin/env bash
# Runs one MPI command across the emulated cluster: creates it (removing
# whatever a killed earlier run left), runs the command with mpiexec, one
# rank per node, and removes the cluster again, also on failure or signal.
#
#   run.sh [-n NODES] [-o NODE,NODE..] [-p PPN] [-t SECONDS] [-e VAR=VALUE].. COMMAND [ARG]..
#     -n  nodes in the cluster (default 4: two islands of two)
#     -o  run only on these node numbers (default: all)
#     -p  ranks per node (default 1; VC_PPN): ranks of a node share its memory
#         (MPI_Win_allocate_shared) but talk TCP, as every rank does here
#     -t  timeout for mpiexec (default 120)
#     -e  extra environment for the ranks (repeatable)
#   e.g. run.sh -e LD_PRELOAD=$PWD/build/lib/libtopobcast.so build/test/mpi/bcast_matrix
#
# Sourced (as check.sh does) it only defines the functions:
#   vc_session_begin / vc_session_end   create and remove the cluster (+ trap)
#   vc_mpirun NODES COMMAND [ARG]..     VC_PPN ranks per listed node ("all" or "0,2")
# vc_mpirun is the hook for running anything across the cluster, e.g. the
# probe:  vc_mpirun all build/bin/topobcast-probe -o topology.yaml
# Every rank also gets LD_PRELOAD=libvc_ucx_close.so (see ucx_close_shim.c)
# and libvc_idle_sleep.so (see test/shim/idle_sleep.c).

VC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=cluster.sh
. "$VC_DIR/cluster.sh"

VC_TIMEOUT=${VC_TIMEOUT:-120}
VC_PPN=${VC_PPN:-1}
VC_GENV=()    # "VAR=VALUE" entries added to every rank's environment
VC_CHILD=
VC_ROOT=$(cd "$VC_DIR/../.." && pwd)
VC_BUILD=${BUILD:-build}
[[ $VC_BUILD = /* ]] || VC_BUILD=$VC_ROOT/$VC_BUILD
# Preloaded into every rank: without it MPICH 4.0.2's finalize deadlocks in
# about a third of runs over UCX TCP (see ucx_close_shim.c).  VC_UCX_SHIM=
# (empty) runs without it.
VC_UCX_SHIM=${VC_UCX_SHIM-$VC_BUILD/test/vcluster/libvc_ucx_close.so}
# Also preloaded: a rank polling UCX with nothing to do sleeps ~20 us instead
# of spinning, so 4 busy-waiting ranks on 2 cores do not turn every message
# into scheduler ticks (see test/shim/idle_sleep.c).  VC_IDLE_SHIM= disables it.
VC_IDLE_SHIM=${VC_IDLE_SHIM-$VC_BUILD/test/vcluster/libvc_idle_sleep.so}

vc_build_one_shim() { # library source
    [ -z "$1" ] && return 0
    [ "$1" -nt "$VC_DIR/$2" ] && return 0
    mkdir -p "$(dirname "$1")" &&
    cc -std=gnu11 -O2 -Wall -Wextra -fPIC -shared "$VC_DIR/$2" -o "$1" -lucp -lucs -ldl
}

vc_build_shim() {
    vc_build_one_shim "$VC_UCX_SHIM" ucx_close_shim.c &&
    vc_build_one_shim "$VC_IDLE_SHIM" ../shim/idle_sleep.c
}

vc_session_end() {
    # Teardown must not be cut short by a second signal (or a first one that
    # arrives while the job's own exit is being cleaned up).
    trap '' INT TERM HUP
    trap - EXIT
    if [ -n "$VC_CHILD" ]; then
        kill -TERM "$VC_CHILD" 2>/dev/null   # timeout forwards it to mpiexec
        wait "$VC_CHILD" 2>/dev/null
        VC_CHILD=
    fi
    vc_down || vc_log "teardown incomplete: run $VC_DIR/cluster.sh down"
    trap - INT TERM HUP
}

vc_session_begin() {
    [ "$(id -u)" -eq 0 ] || { vc_log "needs root (network namespaces)"; return 1; }
    vc_lock "${VC_LOCK_WAIT:-600}" || return 1
    trap 'vc_session_end' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    vc_up
}

# mpiexec runs in tbhead (its own hostname too, so no node is "local" to
# hydra and every proxy goes through the launcher).  Inter-node traffic is
# TCP over the namespaces' veths only (UCX_NET_DEVICES), never shared memory.
# The command runs in the background so that a signal to this shell is
# handled at once instead of after mpiexec ends.
vc_mpirun() { # NODES command...
    local spec=$1 nodes hosts np rc kv
    shift
    if [ "$spec" = all ]; then nodes=$(seq 0 $((VC_NODES - 1))); else nodes=${spec//,/ }; fi
    # shellcheck disable=SC2086
    hosts=$(vc_hosts $nodes)
    np=$(wc -w <<<"$nodes")
    local args=(-launcher ssh -launcher-exec "$VC_DIR/launcher.sh" -iface "$VC_IF"
        -hosts "$hosts" -ppn "$VC_PPN" -n "$((np * VC_PPN))"
        -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES "$VC_IF")
    local preload=$VC_UCX_SHIM${VC_UCX_SHIM:+${VC_IDLE_SHIM:+:}}$VC_IDLE_SHIM
    for kv in "${VC_GENV[@]}"; do
        if [ "${kv%%=*}" = LD_PRELOAD ]; then preload="$preload${preload:+:}${kv#*=}"
        else args+=(-genv "${kv%%=*}" "${kv#*=}"); fi
    done
    [ -n "$preload" ] && args+=(-genv LD_PRELOAD "$preload")
    vc_build_shim || { vc_log "could not build $VC_UCX_SHIM or $VC_IDLE_SHIM"; return 1; }
    # 9>&-: the job must not hold the cluster lock if this shell is killed.
    timeout -k 10 "$VC_TIMEOUT" ip netns exec "$VC_HEAD_NS" unshare --uts -- \
        /bin/sh -c 'hostname "$0" && exec "$@"' "$VC_HEAD_NS" mpiexec "${args[@]}" "$@" 9>&- &
    VC_CHILD=$!
    wait "$VC_CHILD"
    rc=$?
    VC_CHILD=
    # A killed mpiexec can leave proxies or ranks behind in the nodes.
    vc_kill_ns_pids
    return $rc
}

vc_run_main() {
    local only=all
    while getopts "n:o:p:t:e:h" opt; do
        case $opt in
        n) VC_NODES=$OPTARG ;;
        o) only=$OPTARG ;;
        p) VC_PPN=$OPTARG ;;
        t) VC_TIMEOUT=$OPTARG ;;
        e) VC_GENV+=("$OPTARG") ;;
        *) sed -n '2,15s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 2 ;;
        esac
    done
    shift $((OPTIND - 1))
    [ $# -gt 0 ] || { sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 2; }
    vc_session_begin || exit 1
    vc_mpirun "$only" "$@"
    exit $?   # EXIT trap removes the cluster
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    vc_run_main "$@"
fi
