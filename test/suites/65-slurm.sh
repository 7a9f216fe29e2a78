#!/usr/bin/env bash
# examples/slurm/*.sbatch run as written, with stand-ins for srun and
# scontrol (no Slurm here): calibrate.sbatch on 2 ranks (small probe and
# tuner options) must write one configuration that loads and that the
# library then uses in run.sbatch without any fallback; run.sbatch refuses to
# start without it.  make install lays out the site's place, the modulefile
# and the scripts; site.sbatch calibrates two emulated nodes (each task of a
# node runs with that node's host name, in a UTS namespace of its own), and
# a job there reads the installed site.yaml by itself.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

# srun stand-in: launches the command with mpiexec (which passes the
# environment on) on --ntasks ranks (SLURM_NTASKS by default) of the nodes of
# --nodelist (SLURM_JOB_NODELIST by default), --ntasks-per-node of them on
# each (else spread evenly), bound to cores with --cpu-bind=cores; other
# options are dropped.  A node that is not this machine is emulated: its
# tasks run with its name as their host name (on-node).  scontrol stand-in:
# 'show hostnames A,B' (plain lists).
mkdir -p "$D/bin"
cat >"$D/bin/srun" <<'SH'
#!/bin/bash
n=${SLURM_NTASKS:?} ppn= nodes=${SLURM_JOB_NODELIST:?} bind=()
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
    case $1 in
    -n | -w | -N) v=$2; [ "$1" = -n ] && n=$v; [ "$1" = -w ] && nodes=$v; shift ;;
    --ntasks=*) n=${1#*=} ;;
    --ntasks-per-node=*) ppn=${1#*=} ;;
    --nodelist=*) nodes=${1#*=} ;;
    --cpu-bind=cores) bind=(-bind-to core) ;;
    esac
    shift
done
IFS=, read -ra H <<<"$nodes"
export TB_STANDIN_NODES="${H[*]}" TB_STANDIN_PPN=${ppn:-$(((n + ${#H[@]} - 1) / ${#H[@]}))}
exec timeout 600 mpiexec -n "$n" "${bind[@]}" "$(dirname "$0")/on-node" "$@"
SH
cat >"$D/bin/on-node" <<'SH'
#!/bin/bash
# the task's node: its rank over the tasks per node
read -ra H <<<"$TB_STANDIN_NODES"
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
h=${H[$((r / TB_STANDIN_PPN % ${#H[@]}))]}
[ "$h" = "$(hostname)" ] && exec "$@"
exec unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
SH
cat >"$D/bin/scontrol" <<'SH'
#!/bin/bash
[ "$1 $2" = "show hostnames" ] && tr , '\n' <<<"$3"
SH
chmod +x "$D/bin/srun" "$D/bin/on-node" "$D/bin/scontrol"

# The build tree has the layout of an installation (bin/, lib/).
HOST=$(hostname)
export PATH="$D/bin:$PATH" SLURM_JOB_ID=4242 SLURM_NTASKS=2 SLURM_SUBMIT_DIR="$D" \
    SLURM_JOB_NODELIST="$HOST" TOPOBCAST_PREFIX="$PWD/$BUILD"
OUTDIR=$D/topobcast-4242
LOG=$(TOPOBCAST_PROBE_OPTS="-M 64K -R 2" \
      TOPOBCAST_TUNER_OPTS="--sizes 1,1K,64K --reps 5 --warmup 1 --max-timed 3" \
      TOPOBCAST_COMPARE_OPTS="--sizes 1,1K,64K --reps 5 --warmup 1" \
      timeout 900 bash examples/slurm/calibrate.sbatch 2>&1)
RC=$?
check "calibrate.sbatch: exit status 0" [ "$RC" -eq 0 ] || printf '%s\n' "$LOG" | tail -20 | sed 's/^/# /'
for f in nodelist measurements.txt topology.yaml topobcast.yaml compare.csv report.html; do
    check "calibrate.sbatch wrote $f" [ -s "$OUTDIR/$f" ]
done
check "calibrate.sbatch: nodelist is this job's" grep -qx "$HOST" "$OUTDIR/nodelist"
check "calibrate.sbatch: topobcast.yaml loads" "$BUILD/bin/topobcast-probe" --check "$OUTDIR/topobcast.yaml"
# shellcheck disable=SC2016 # awk fields, not shell variables
check "calibrate.sbatch: compare.csv has a timed row per size" \
    awk -F, 'NR > 1 && $1 == "job" { n++; if ($5 + 0 <= 0 || $6 + 0 <= 0) bad = 1 } END { exit !(n == 3 && !bad) }' "$OUTDIR/compare.csv"
check "calibrate.sbatch: last line names the configuration" \
    grep -q "TOPOBCAST_CONFIG=$OUTDIR/topobcast.yaml" <<<"$(printf '%s\n' "$LOG" | tail -1)"

# run.sbatch: the application under the library with that configuration.
OUT=$(TOPOBCAST_CONFIG="$OUTDIR/topobcast.yaml" timeout 300 bash examples/slurm/run.sbatch "$BUILD/bin/bcast_app" 2>&1)
RC=$?
check "run.sbatch: exit status 0" [ "$RC" -eq 0 ]
check "run.sbatch: data correct" grep -q "all data correct" <<<"$OUT"
check "run.sbatch: the table's rules fired" grep -q "stats: rule=.*source=$OUTDIR/topobcast.yaml" <<<"$OUT"
check "run.sbatch: no fallback, no warning" \
    [ "$(printf '%s\n' "$OUT" | grep '^topobcast: ' | grep -vc '^topobcast: stats: \(algorithm\|rule\)=')" -eq 0 ]
printf '%s\n' "$OUT" | sed 's/^/# /'

OUT=$(timeout 60 bash examples/slurm/run.sbatch "$BUILD/bin/bcast_app" 2>&1)
RC=$?
check "run.sbatch without TOPOBCAST_CONFIG: refuses (status $RC)" [ "$RC" -ne 0 ]
check "run.sbatch without TOPOBCAST_CONFIG: says so" grep -q "set TOPOBCAST_CONFIG" <<<"$OUT"

# TOPOBCAST_MPI: a value that names no MPI, and a prefix without that
# MPI's build, are refused before anything runs.
for s in calibrate run; do
    OUT=$(TOPOBCAST_MPI=intel TOPOBCAST_CONFIG="$OUTDIR/topobcast.yaml" timeout 60 bash "examples/slurm/$s.sbatch" "$BUILD/bin/bcast_app" 2>&1)
    RC=$?
    check "$s.sbatch TOPOBCAST_MPI=intel: status 2 (got $RC), said" \
        bash -c '[ "$1" -eq 2 ] && grep -q "expected mpich or openmpi" <<<"$2"' _ "$RC" "$OUT"
    OUT=$(TOPOBCAST_MPI=openmpi TOPOBCAST_PREFIX="$D/none" TOPOBCAST_CONFIG="$OUTDIR/topobcast.yaml" \
          timeout 60 bash "examples/slurm/$s.sbatch" "$BUILD/bin/bcast_app" 2>&1)
    RC=$?
    check "$s.sbatch TOPOBCAST_MPI=openmpi, prefix without it: status 1 (got $RC), names the file" \
        bash -c '[ "$1" -eq 1 ] && grep -q "/none/.*not found" <<<"$2"' _ "$RC" "$OUT"
done

# make install: the MPICH build into a prefix, with the site's place (an
# empty etc/topobcast/), the modulefile and the Slurm scripts.
P=$D/prefix
make -s install BUILD="$BUILD" PREFIX="$P" >"$D/install.log" 2>&1
RC=$?
check "make install (MPICH) into a prefix (status $RC)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || tail -10 "$D/install.log" | sed 's/^/# /'
VERSION=$("$BUILD/bin/topobcast-probe" --version | awk '{ print $2 }')
MF=$P/share/modulefiles/topobcast/$VERSION
check "make install: etc/topobcast/ made, empty" bash -c '[ -d "$1" ] && [ -z "$(ls -A "$1")" ]' _ "$P/etc/topobcast"
check "make install: the modulefile share/modulefiles/topobcast/$VERSION, PREFIX and VERSION in it" \
    bash -c 'head -1 "$1" | grep -q "^#%Module" && grep -q "^set root $2$" "$1" && grep -q "topobcast $3:" "$1" && ! grep -q "@[A-Z]*@" "$1"' \
    _ "$MF" "$P" "$VERSION"
check "make install: the Slurm scripts in share/topobcast/slurm/" \
    bash -c 'for f in calibrate.sbatch run.sbatch site.sbatch README.md; do [ -s "$1/$f" ] || exit 1; done; [ -x "$1/site.sbatch" ]' \
    _ "$P/share/topobcast/slurm"
# the modulefile as a module system reads it: environment-modules or Lmod
# when installed here, else Tcl itself with module's commands stood in
if [ -r /usr/share/modules/init/bash ]; then
    MODSYS="environment-modules" MODINIT=/usr/share/modules/init/bash
else
    MODSYS="Lmod" MODINIT=$(ls /usr/share/lmod/*/init/bash 2>/dev/null | head -1)
fi
if [ -n "$MODINIT" ]; then
    OUT=$(bash -c '. "$1" && module use "$2" && module load topobcast &&
                   echo "ROOT=$TOPOBCAST_ROOT PRELOAD=$TOPOBCAST_PRELOAD OMPI=$TOPOBCAST_PRELOAD_OPENMPI PATH0=${PATH%%:*} PKG=${PKG_CONFIG_PATH%%:*}" &&
                   module unload topobcast && echo "UNLOADED=${TOPOBCAST_ROOT:-}"' _ "$MODINIT" "$P/share/modulefiles" 2>&1)
elif command -v tclsh >/dev/null; then
    MODSYS="tclsh, module commands stood in"
    OUT=$(printf '%s\n' 'proc setenv {k v} { set ::env($k) $v }' 'proc prepend-path {k v} { set ::p($k) $v }' \
              'proc module-whatis {args} {}' 'proc conflict {args} {}' "source {$MF}" \
              'puts "ROOT=$env(TOPOBCAST_ROOT) PRELOAD=$env(TOPOBCAST_PRELOAD) OMPI=$env(TOPOBCAST_PRELOAD_OPENMPI) PATH0=$p(PATH) PKG=$p(PKG_CONFIG_PATH)"' \
              | tclsh 2>&1)
fi
if [ -n "$MODINIT" ] || command -v tclsh >/dev/null; then
    check "the modulefile loads ($MODSYS): TOPOBCAST_ROOT, both preloads, PATH, PKG_CONFIG_PATH" \
        grep -qx "ROOT=$P PRELOAD=$P/lib/libtopobcast.so OMPI=$P/lib/openmpi/libtopobcast.so PATH0=$P/bin PKG=$P/lib/pkgconfig" <<<"$OUT"
    if [ -n "$MODINIT" ]; then
        check "the modulefile unloads ($MODSYS)" grep -qx "UNLOADED=" <<<"$OUT"
    else
        ok "the modulefile unloads # skip: no module system here to unload it"
    fi
    printf '%s\n' "$OUT" | sed 's/^/# /'
else
    ok "the modulefile # skip: no environment-modules, Lmod or tclsh here"
fi

# site.sbatch on two emulated nodes, n1 and n2: a network pass (one task
# on each), a node pass (both cores of n1, bound), compose, the site's
# tuning, installed into the prefix (TOPOBCAST_INSTALL=1).
if ! unshare --uts true 2>/dev/null; then
    ok "site.sbatch # skip: no UTS namespace here (unshare --uts needs root) to emulate nodes"
else
    TUNER_BIN=$P/bin/topobcast-tuner
    if "$TUNER_BIN" --help 2>&1 | grep -q -- '--site'; then
        STUBBED=
    else
        # not in the tuner yet: a stand-in copies the site's topology as
        # the table (a valid configuration: the built-in table)
        STUBBED=1
        mv "$TUNER_BIN" "$TUNER_BIN.real"
        cat >"$TUNER_BIN" <<'SH'
#!/bin/bash
# topobcast-tuner --site stand-in: rank 0 copies --topology FILE to -o FILE
topo= out=
while [ $# -gt 0 ]; do case $1 in --topology) topo=$2; shift ;; -o) out=$2; shift ;; esac; shift; done
[ "${PMI_RANK:-0}" = 0 ] || exit 0
cp "$topo" "$out" && echo "topobcast-tuner --site stand-in: $out is the topology alone"
SH
        chmod +x "$TUNER_BIN"
    fi
    printf 'topobcast: 2\n# kept\n' >"$D/old-site.yaml"
    LOG=$(SLURM_JOB_ID=4444 SLURM_JOB_NODELIST=n1,n2 SLURM_NTASKS=4 TOPOBCAST_PREFIX="$P" TOPOBCAST_INSTALL=1 \
          TOPOBCAST_PROBE_OPTS="-M 4K -R 2" TOPOBCAST_NET_OPTS="--fast auto" \
          TOPOBCAST_TUNER_OPTS="--sizes 1,64K --reps 5 --warmup 1" timeout 600 bash examples/slurm/site.sbatch 2>&1)
    RC=$?
    SO=$D/topobcast-site-4444
    check "site.sbatch: exit status 0" [ "$RC" -eq 0 ]
    [ "$RC" -eq 0 ] || printf '%s\n' "$LOG" | tail -20 | sed 's/^/# /'
    check "site.sbatch: the network pass ran one task on each node (hosts n1, n2)" \
        grep -q "^  fingerprint: {nprocs: 2, hosts: \[n1, n2\]," "$SO/network.yaml"
    NODEPASS=$(ls "$SO"/node-*.yaml 2>/dev/null | head -1)
    check "site.sbatch: one node pass, of the type hwloc's summary names, bound ranks on n1 ($(basename "${NODEPASS:-none}"))" \
        bash -c '[ "$(ls "$1"/node-*.yaml | wc -l)" -eq 1 ] && grep -Eq "node-pk[0-9]+-numa[0-9]+-c[0-9]+-pu[0-9]+\.yaml$" <<<"$2" &&
                 grep -q "hosts: \[n1\]" "$2" && ! grep -q "^    - \[0, -1" "$2"' _ "$SO" "$NODEPASS"
    check "site.sbatch: composed: both nodes of that type" \
        bash -c 'grep -q "a site.s topology of 2 hosts, levels: node(2)" "$1/compose.log" && grep -q "^      hosts: \[0, 1\]$" "$1/site-topology.yaml"' \
        _ "$SO"
    check "site.sbatch: installed as PREFIX/etc/topobcast/site.yaml, loads" \
        bash -c 'cmp -s "$1/site.yaml" "$2/etc/topobcast/site.yaml" && "$2/bin/topobcast-probe" --check "$2/etc/topobcast/site.yaml"' _ "$SO" "$P"
    if [ -n "$STUBBED" ]; then
        ok "site.sbatch: topobcast-tuner --site # skip: the tuner has no --site yet; a stand-in copied the topology as site.yaml"
        mv "$TUNER_BIN.real" "$TUNER_BIN"
    else
        check "site.sbatch: topobcast-tuner --site wrote a table" grep -q "^selection:" "$SO/site.yaml"
    fi
    # a job on those nodes, TOPOBCAST_CONFIG unset: the library reads the
    # installed site file and places every rank (binomial needs the
    # hierarchy), with no warning
    OUT=$(env -u TOPOBCAST_CONFIG SLURM_JOB_NODELIST=n1,n2 SLURM_NTASKS=4 TOPOBCAST_PREFIX="$P" TOPOBCAST_VERBOSE=1 \
          TOPOBCAST_ALGORITHM=binomial timeout 300 bash examples/slurm/run.sbatch "$BUILD/bin/bcast_app" 2>&1)
    RC=$?
    check "run.sbatch without TOPOBCAST_CONFIG on the site's nodes: the installed site.yaml, data right, no warning (status $RC)" \
        bash -c '[ "$1" -eq 0 ] && grep -qF "configuration: $3 (the site'"'"'s: TOPOBCAST_CONFIG is unset)" <<<"$2" &&
                 grep -q "all data correct" <<<"$2" && grep -q "^topobcast: stats: algorithm=binomial" <<<"$2" &&
                 ! grep -q "is not in the topology\|using MPI_Bcast" <<<"$2"' _ "$RC" "$OUT" "$P/etc/topobcast/site.yaml"
    printf '%s\n' "$OUT" | grep -v "^topobcast: .*shape:\|^topobcast:   " | head -12 | sed 's/^/# /'
    OUT=$(env -u TOPOBCAST_CONFIG SLURM_JOB_NODELIST=n1,n3 SLURM_NTASKS=2 TOPOBCAST_PREFIX="$P" TOPOBCAST_ALGORITHM=binomial \
          timeout 300 bash examples/slurm/run.sbatch "$BUILD/bin/bcast_app" 2>&1)
    check "run.sbatch on a node the site lacks: one warning naming it, MPI_Bcast, data right" \
        bash -c 'grep -q "all data correct" <<<"$1" && [ "$(grep -c "^topobcast: host n3 (world rank 1) is not in the topology of .*site.yaml (2 hosts: n1 ... n2): recalibrate, or probe it and merge (topobcast-probe --merge); using MPI_Bcast$" <<<"$1")" -eq 1 ]' \
        _ "$OUT"
    # make install again: the site file stays
    cp "$P/etc/topobcast/site.yaml" "$D/installed-site.yaml"
    make -s install BUILD="$BUILD" PREFIX="$P" >>"$D/install.log" 2>&1
    check "make install again: the installed site.yaml left as it was" cmp -s "$D/installed-site.yaml" "$P/etc/topobcast/site.yaml"
fi

# Both builds installed into one prefix as README says, then the Open MPI
# workflow from it (srun's stand-in launching Open MPI's mpiexec).
OMPI_BUILD=$BUILD/openmpi
if ! command -v mpiexec.openmpi >/dev/null || [ ! -x "$OMPI_BUILD/bin/bcast_app" ]; then
    echo "ok slurm openmpi # skip: mpiexec.openmpi or $OMPI_BUILD missing"
    exit 0
fi
make -s install MPI_FLAVOR=openmpi BUILD="$OMPI_BUILD" PREFIX="$P" >>"$D/install.log" 2>&1
RC=$?
check "make install, both MPIs, into one prefix (status $RC)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || tail -10 "$D/install.log" | sed 's/^/# /'
for f in lib/libtopobcast.so lib/openmpi/libtopobcast.so lib/pkgconfig/topobcast.pc lib/pkgconfig/topobcast-openmpi.pc \
    include/topobcast.h bin/topobcast-probe bin/topobcast-probe.openmpi bin/topobcast-tuner.openmpi bin/topobcast-report.openmpi; do
    check "installed: $f" [ -e "$P/$f" ]
done
# each build where it belongs: the Open MPI files link Open MPI's library
check "installed: lib/openmpi/libtopobcast.so and topobcast-probe.openmpi are Open MPI's, the others MPICH's" \
    bash -c 'ldd "$1/lib/openmpi/libtopobcast.so" | grep -q "libmpi\.so" && ldd "$1/bin/topobcast-probe.openmpi" | grep -q "libmpi\.so" &&
             ldd "$1/lib/libtopobcast.so" | grep -q "libmpich\.so" && ldd "$1/bin/topobcast-probe" | grep -q "libmpich\.so"' _ "$P"
# the .pc files follow their prefix: a moved installation is found by
# pkg-config --define-prefix
cp -a "$P" "$D/moved"
check "installed .pc files relocate (pkg-config --define-prefix)" \
    bash -c '[ "$(PKG_CONFIG_PATH=$1/lib/pkgconfig pkg-config --define-prefix --variable=libdir topobcast-openmpi)" = "$1/lib/openmpi" ] &&
             [ "$(PKG_CONFIG_PATH=$1/lib/pkgconfig pkg-config --define-prefix --variable=libdir topobcast)" = "$1/lib" ]' _ "$D/moved"
sed -i 's/exec timeout 600 mpiexec /exec timeout 600 mpiexec.openmpi --allow-run-as-root --oversubscribe /' "$D/bin/srun"
LOG=$(TOPOBCAST_MPI=openmpi TOPOBCAST_PREFIX="$P" SLURM_JOB_ID=4343 TOPOBCAST_PROBE_OPTS="-M 64K -R 2" \
      TOPOBCAST_TUNER_OPTS="--sizes 1,1K,64K --reps 5 --warmup 1 --max-timed 3" \
      TOPOBCAST_COMPARE_OPTS="--sizes 1,64K --reps 5 --warmup 1" \
      timeout 900 bash examples/slurm/calibrate.sbatch 2>&1)
RC=$?
check "calibrate.sbatch TOPOBCAST_MPI=openmpi: exit status 0" [ "$RC" -eq 0 ]; [ "$RC" -eq 0 ] || printf '%s\n' "$LOG" | tail -20 | sed 's/^/# /'
OM=$D/topobcast-4343
check "calibrate.sbatch TOPOBCAST_MPI=openmpi: the configuration and the report" \
    bash -c '[ -s "$1/topobcast.yaml" ] && [ -s "$1/report.html" ]' _ "$OM"
OUT=$(TOPOBCAST_MPI=openmpi TOPOBCAST_PREFIX="$P" TOPOBCAST_CONFIG="$OM/topobcast.yaml" \
      timeout 300 bash examples/slurm/run.sbatch "$OMPI_BUILD/bin/bcast_app" 2>&1)
RC=$?
check "run.sbatch TOPOBCAST_MPI=openmpi: status 0, data correct, the table's rules fired, no warning" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && grep -q "stats: rule=.*source=$3" <<<"$2" &&
             [ "$(grep "^topobcast: " <<<"$2" | grep -vc "^topobcast: stats: \(algorithm\|rule\)=")" -eq 0 ]' \
    _ "$RC" "$OUT" "$OM/topobcast.yaml"
