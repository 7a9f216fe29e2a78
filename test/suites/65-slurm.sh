#!/usr/bin/env bash
# examples/slurm/*.sbatch run as written, with a stand-in for srun (no Slurm
# here): calibrate.sbatch on 2 ranks (small probe and tuner options) must
# write one configuration that loads and that the library then uses in
# run.sbatch without any fallback; run.sbatch refuses to start without it.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

# srun stand-in: drops srun's own options, launches the command on
# SLURM_NTASKS ranks with mpiexec (which passes the environment on).
mkdir -p "$D/bin"
cat >"$D/bin/srun" <<'SH'
#!/bin/bash
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
exec timeout 600 mpiexec -n "${SLURM_NTASKS:?}" "$@"
SH
chmod +x "$D/bin/srun"

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

# Both builds installed into one prefix as README says, then the Open MPI
# workflow from it (srun's stand-in launching Open MPI's mpiexec).
OMPI_BUILD=$BUILD/openmpi
if ! command -v mpiexec.openmpi >/dev/null || [ ! -x "$OMPI_BUILD/bin/bcast_app" ]; then
    echo "ok slurm openmpi # skip: mpiexec.openmpi or $OMPI_BUILD missing"
    exit 0
fi
P=$D/prefix
make -s install BUILD="$BUILD" PREFIX="$P" >"$D/install.log" 2>&1 &&
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
