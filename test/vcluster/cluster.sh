#!/usr/bin/env bash
# Emulated cluster in network namespaces: each "node" is a netns with one
# veth into a bridge; two bridges ("islands") are joined by a trunk veth
# shaped with tbf so that cross-island traffic is slower than traffic within
# an island.  Everything lives in namespaces this script creates (the bridges
# too, in tbfabric), so no address or route ever touches the host's own
# network namespace, and deleting the namespaces removes every device.
#
#   cluster.sh up | down | status        (or source it and call vc_up/vc_down)
#   (up and down take the cluster lock, so they wait for a running session)
#
#   tbhead   (10.231.0.2)  runs mpiexec; on island 0, not an MPI node
#   tbnodeI  (10.231.0.10+I) MPI node I; first half (rounded up) on island 0
#   tbfabric               bridges tbbr0, tbbr1 and the trunk tbtr0<->tbtr1
#
# Per-namespace /etc/hosts files go to /etc/netns/NS/hosts, which
# `ip netns exec` bind-mounts over /etc/hosts: node names resolve inside the
# cluster without editing the machine's /etc/hosts.
#
# Knobs (environment): VC_NODES (4), VC_TRUNK_RATE (100mbit),
# VC_TRUNK_BURST (bytes, 4096), VC_TRUNK_LATENCY (tbf queue bound, 20ms),
# VC_QUICKACK (1: no delayed ACKs on the cluster subnet, see README.md).

VC_NODES=${VC_NODES:-4}
VC_NET=10.231.0
VC_HEAD_NS=tbhead
VC_FABRIC_NS=tbfabric
VC_IF=tbeth0
VC_TRUNK_RATE=${VC_TRUNK_RATE:-100mbit}
VC_TRUNK_BURST=${VC_TRUNK_BURST:-4096}
VC_TRUNK_LATENCY=${VC_TRUNK_LATENCY:-20ms}
VC_LOCK=${VC_LOCK:-/run/lock/topobcast-vcluster.lock}

vc_log() { echo "vcluster: $*" >&2; }

vc_node_ns() { echo "tbnode$1"; }
vc_node_ip() { echo "$VC_NET.$((10 + $1))"; }
vc_node_island() { echo $(( $1 < (VC_NODES + 1) / 2 ? 0 : 1 )); }

# Comma-separated host list for mpiexec -hosts; with no argument all nodes,
# otherwise the given node numbers.
vc_hosts() {
    local out="" i
    if [ $# -eq 0 ]; then set -- $(seq 0 $((VC_NODES - 1))); fi
    for i in "$@"; do out="$out${out:+,}$(vc_node_ns "$i")"; done
    echo "$out"
}

# Namespaces left by this script (any node count), for cleanup.
vc_our_namespaces() {
    ip netns list 2>/dev/null | awk '{print $1}' |
        grep -E "^(tbnode[0-9]+|$VC_HEAD_NS|$VC_FABRIC_NS)\$"
}

# Every process still inside one of our namespaces was started through this
# cluster (launcher, hydra proxy, ranks): stop them by pid, TERM then KILL.
vc_kill_ns_pids() {
    local ns pids left
    for ns in $(vc_our_namespaces); do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        # shellcheck disable=SC2086  # one pid per word
        [ -n "$pids" ] && kill -TERM $pids 2>/dev/null
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        left=""
        for ns in $(vc_our_namespaces); do left="$left$(ip netns pids "$ns" 2>/dev/null)"; done
        [ -z "$left" ] && return 0
        sleep 0.2
    done
    for ns in $(vc_our_namespaces); do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        # shellcheck disable=SC2086
        [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    done
    return 0
}

vc_down() {
    local ns
    vc_kill_ns_pids
    for ns in $(vc_our_namespaces); do
        ip netns del "$ns" 2>/dev/null || vc_log "could not delete netns $ns"
    done
    for ns in /etc/netns/tbnode[0-9]* "/etc/netns/$VC_HEAD_NS" "/etc/netns/$VC_FABRIC_NS"; do
        [ -e "$ns" ] && rm -rf -- "$ns"
    done
    rmdir /etc/netns 2>/dev/null   # only if we left it empty
    [ -z "$(vc_our_namespaces)" ]
}

# One member (node or head): netns, veth into the island's bridge, address.
vc_add_member() { # ns ip island
    local ns=$1 ip=$2 island=$3 port="p$1"
    ip netns add "$ns" &&
    ip -n "$ns" link set lo up &&
    ip link add "$VC_IF" netns "$ns" type veth peer name "$port" netns "$VC_FABRIC_NS" &&
    ip -n "$VC_FABRIC_NS" link set "$port" master "tbbr$island" up &&
    ip -n "$ns" addr add "$ip/24" dev "$VC_IF" &&
    ip -n "$ns" link set "$VC_IF" up &&
    if [ "${VC_QUICKACK:-1}" = 1 ]; then
        ip -n "$ns" route replace "$VC_NET.0/24" dev "$VC_IF" src "$ip" quickack 1
    fi
}

vc_write_hosts() {
    local ns i
    for ns in "$VC_HEAD_NS" $(for i in $(seq 0 $((VC_NODES - 1))); do vc_node_ns "$i"; done); do
        mkdir -p "/etc/netns/$ns" || return 1
        {
            echo "127.0.0.1 localhost"
            echo "$VC_NET.2 $VC_HEAD_NS"
            for i in $(seq 0 $((VC_NODES - 1))); do echo "$(vc_node_ip "$i") $(vc_node_ns "$i")"; done
        } >"/etc/netns/$ns/hosts" || return 1
    done
}

# Reachability without ping (not installed): a TCP connect to a closed port
# is refused only if the peer answered.
vc_reachable() { # from_ns ip
    ip netns exec "$1" timeout 3 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 | grep -q 'refused'
}

vc_up() {
    local i island
    vc_down || { vc_log "stale namespaces could not be removed"; return 1; }
    ip netns add "$VC_FABRIC_NS" || return 1
    ip -n "$VC_FABRIC_NS" link set lo up
    for island in 0 1; do
        ip -n "$VC_FABRIC_NS" link add "tbbr$island" type bridge &&
        ip -n "$VC_FABRIC_NS" link set "tbbr$island" up || return 1
    done
    # Trunk between the islands, shaped in both directions (egress of each end).
    ip -n "$VC_FABRIC_NS" link add tbtr0 type veth peer name tbtr1 &&
    ip -n "$VC_FABRIC_NS" link set tbtr0 master tbbr0 up &&
    ip -n "$VC_FABRIC_NS" link set tbtr1 master tbbr1 up || return 1
    for i in 0 1; do
        ip netns exec "$VC_FABRIC_NS" tc qdisc add dev "tbtr$i" root tbf \
            rate "$VC_TRUNK_RATE" burst "$VC_TRUNK_BURST" latency "$VC_TRUNK_LATENCY" || return 1
    done
    vc_add_member "$VC_HEAD_NS" "$VC_NET.2" 0 || return 1
    for i in $(seq 0 $((VC_NODES - 1))); do
        vc_add_member "$(vc_node_ns "$i")" "$(vc_node_ip "$i")" "$(vc_node_island "$i")" || return 1
    done
    vc_write_hosts || return 1
    for i in $(seq 0 $((VC_NODES - 1))); do
        vc_reachable "$VC_HEAD_NS" "$(vc_node_ip "$i")" ||
            { vc_log "node $i ($(vc_node_ip "$i")) not reachable from $VC_HEAD_NS"; return 1; }
    done
    return 0
}

vc_status() {
    local ns
    ip netns list | grep -E '^(tbnode|tbhead|tbfabric)'
    for ns in $(vc_our_namespaces); do
        echo "== $ns"; ip -n "$ns" -br addr
    done
    ip netns exec "$VC_FABRIC_NS" tc qdisc show 2>/dev/null | grep tbf
}

# Bytes the trunk carried so far, both directions.
vc_trunk_bytes() {
    local a b
    a=$(ip netns exec "$VC_FABRIC_NS" cat /sys/class/net/tbtr0/statistics/tx_bytes) &&
    b=$(ip netns exec "$VC_FABRIC_NS" cat /sys/class/net/tbtr1/statistics/tx_bytes) &&
    echo $((a + b))
}

# Serialises cluster users on this machine (the namespace names are fixed).
# Held on fd 9 until the shell exits; taking it twice is a no-op (reopening
# fd 9 would drop the lock already held).
VC_LOCKED=
vc_lock() { # max seconds to wait
    [ -n "$VC_LOCKED" ] && return 0
    exec 9>"$VC_LOCK" || return 1
    flock -w "${1:-600}" 9 || { vc_log "cluster busy (lock $VC_LOCK)"; return 1; }
    VC_LOCKED=1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
    up) vc_lock 600 && vc_up ;;
    down) vc_lock "${VC_LOCK_WAIT:-60}" && vc_down ;;   # never under a running session
    status) vc_status ;;
    *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
    esac
fi
