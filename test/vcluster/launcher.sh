#!/bin/sh
# Hydra launcher for the emulated cluster, used as
#   mpiexec -launcher ssh -launcher-exec launcher.sh -hosts tbnode0,...
# Hydra calls it like ssh:  launcher.sh -x HOST "/usr/bin/hydra_pmi_proxy" --control-port ...
# (the proxy command arrives as words quoted for a remote shell, so it is
# re-parsed by sh -c exactly as sshd would).  HOST is a node name (tbnodeI)
# or its address (10.231.0.1I); the proxy starts inside that network
# namespace with its own UTS namespace whose hostname is the node name, so
# MPI_Get_processor_name and anything keyed on the hostname see distinct nodes.
# Only namespaces named tbnodeN are accepted: nothing is launched elsewhere.

while [ $# -gt 0 ]; do
    case "$1" in
    -o | -p | -l | -i | -F) shift 2 ;;   # ssh options with a value
    -*) shift ;;                          # -x, -q, -T, ...
    *) break ;;
    esac
done
host=$1
shift
[ $# -gt 0 ] || { echo "launcher.sh: no command for $host" >&2; exit 255; }

case "$host" in
tbnode[0-9] | tbnode[0-9][0-9]) ns=$host ;;
10.231.0.1[0-9]) ns=tbnode${host#10.231.0.1} ;;
*) echo "launcher.sh: $host is not a node of the emulated cluster" >&2; exit 255 ;;
esac
ip netns list | grep -qx "$ns\( .*\)\?" || { echo "launcher.sh: netns $ns does not exist" >&2; exit 255; }

exec ip netns exec "$ns" unshare --uts -- /bin/sh -c "hostname $ns && exec $*"
