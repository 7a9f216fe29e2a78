#!/usr/bin/env bash
# The library beside a PMPI profiling tool, in both LD_PRELOAD orders
# (README, "With other PMPI tools").  The tool is test/tool/ptool.c, written
# as real profilers are: it sets itself up in MPI_Init (and Open MPI's
# Fortran MPI_INIT), aborts when a wrapper of its runs before that, and at
# MPI_Finalize reports how often each function it wraps was called and
# the time spent in it.
#
#   tool first  (LD_PRELOAD=tool:library) the tool's MPI_Bcast calls
#               PMPI_Bcast, which is the library's: the library runs every
#               broadcast (TOPOBCAST_STATS counts its algorithm for each) and
#               the tool reports every call the program made, with its time.
#   library first (LD_PRELOAD=library:tool) the library's MPI_Init and
#               MPI_Finalize call the tool's: the tool initialises and
#               reports; it sees every call the library leaves (all of them
#               under the built-in table, which runs nothing itself) and
#               none of the broadcasts the library runs, nor their requests'
#               waits.
#
# Programs: test/mpi/bcast_kinds.c (MPI_Bcast, MPI_Ibcast with MPI_Wait,
# MPI_Waitall, MPI_Test, MPI_Waitany, MPI 4's MPI_Bcast_init, on
# MPI_COMM_WORLD and a duplicate; it prints its own call counts in the
# tool's form), under forced algorithms, the built-in table and a table of
# both; test/mpi/ibcast.c (every non-blocking path) with the tool either
# side; the Fortran programs of 20-fortran and 38-nbc, each binding.  Each
# run must end (timeout), with the program's own value checks passing.
# Under Open MPI, the same with Open MPI's own trace library
# (libompitrace, a real PMPI tool) when installed.  Timings are printed,
# never judged.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
TOOL=$PWD/$BUILD/test/tool/libtb_ptool.so
FLAVOR=${TB_MPI_FLAVOR:-mpich}
TIMEOUT=${TB_PTOOL_TIMEOUT:-180}
require pmpi-tools "$LIB" "$TOOL" "$T/bcast_kinds" || exit 1
FUNCS=(MPI_Bcast MPI_Ibcast MPI_Bcast_init MPI_Start MPI_Startall MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome
    MPI_Test MPI_Testall MPI_Testany MPI_Testsome MPI_Comm_dup)

# prun NP ORDER ENV... -- PROGRAM ARGS: OUT and RC of PROGRAM on NP ranks,
# ORDER "tool" (tool first), "lib" (library first), "alone" (the tool
# only) or "none" (the library only)
prun() {
    local np=$1 order=$2 PRELOAD=$LIB
    shift 2
    case $order in
    tool) PRELOAD=$TOOL:$LIB ;;
    lib) PRELOAD=$LIB:$TOOL ;;
    alone) PRELOAD=$TOOL ;;
    esac
    run_mpi "$np" "$TIMEOUT" "$@"
}
# tool_runs NP PROGRAM NAME: whether the tool alone can run PROGRAM (MPICH's
# mpi_f08 MPI_INIT calls PMPI_Init, which no tool sees: such a tool aborts
# at its first wrapper, library or not); says so when it cannot
tool_runs() {
    prun "$1" alone -- "$2"
    if grep -q "before the tool.s MPI_Init ran" <<<"$OUT"; then
        ok "$3 # skip: the tool alone cannot run it (its MPI_INIT calls PMPI_Init)"
        return 1
    fi
}
# counts WHO NAME: "min max sum" of NAME's line "WHO: NAME ranks=P
# calls_min=A calls_max=B calls_sum=C" in OUT (WHO ptool or bcast_kinds;
# anywhere in a line: another rank's output may precede it)
counts() {
    sed -n "s/.*$1: $2 ranks=[0-9]* calls_min=\([0-9]*\) calls_max=\([0-9]*\) calls_sum=\([0-9]*\).*/\1 \2 \3/p" <<<"$OUT" |
        head -1
}
tool_seconds() { sed -n "s/^ptool: $1 ranks=.* seconds_max=\([0-9.]*\)$/\1/p" <<<"$OUT" | head -1; }
# ended NAME: the run ended, the program's checks passed, the tool
# initialised (its lines) and reported, nothing called it before that
ended() {
    check "$1: ends (exit $RC), values right, the tool initialised and reported" \
        bash -c '[ "$1" -eq 0 ] && grep -qE "^ok (bcast_kinds|fortran|ibcast)" <<<"$2" && ! grep -q "^not ok" <<<"$2" &&
                 grep -q "^ptool: initialised on" <<<"$2" && grep -q "^ptool: report from" <<<"$2" &&
                 ! grep -q "before the tool.s MPI_Init ran" <<<"$2"' _ "$RC" "$OUT"
    [ "$RC" -eq 0 ] || grep -vE '^(ptool|bcast_kinds):' <<<"$OUT" | tail -5 | sed 's/^/# /'
}
# stats_exact NAME ALG WANT: the library's statistics count ALG WANT times, and nothing else
stats_exact() {
    local got others
    got=$(stats_calls "$2" <<<"$OUT")
    others=$(stats_others "$2" <<<"$OUT" | tr '\n' ' ')
    check "$1: TOPOBCAST_STATS counts $2 calls=${got:-0} for the ${3:-?} broadcasts${others:+; also: $others}" \
        bash -c '[ -n "$1" ] && [ "$2" = "$1" ] && [ -z "$3" ]' _ "$3" "${got:-0}" "$others"
}
# same_counts NAME FUNC...: the tool's counts of each FUNC are the program's
same_counts() {
    local name=$1 f bad=""
    shift
    for f; do
        [ "$(counts ptool "$f")" = "$(counts bcast_kinds "$f")" ] || bad+=" $f (tool $(counts ptool "$f"), program $(counts bcast_kinds "$f"))"
    done
    check "$name: the tool counts every call the program made of$(printf ' %s' "$@" | sed 's/ MPI_/ /g')${bad:+; differ:$bad}" [ -z "$bad" ]
}
# zero_counts NAME FUNC...: the tool saw none of them
zero_counts() {
    local name=$1 f bad=""
    shift
    for f; do
        [ "$(counts ptool "$f")" = "0 0 0" ] || bad+=" $f ($(counts ptool "$f"))"
    done
    check "$name: the tool sees none of the library's broadcasts or their requests${bad:+; saw:$bad}" [ -z "$bad" ]
}

# The tool alone: it sees every call the program makes (the baseline the
# library must keep when it sits below the tool).
prun 3 alone -- "$T/bcast_kinds"
ended "tool alone np=3"
same_counts "tool alone np=3" "${FUNCS[@]}"

# kinds ORDER NP ENV...: bcast_kinds under ORDER
kinds() {
    local order=$1 np=$2 label
    shift 2
    label="$order first np=$np ${*:-built-in table}"
    label=${label//TOPOBCAST_/}
    label=${label/CONFIG=$table/table: MPI up to 1K, binomial above}
    prun "$np" "$order" TOPOBCAST_STATS=1 "$@" -- "$T/bcast_kinds"
    ended "$label"
    local want
    want=$(sed -n 's/^# broadcasts: \([0-9][0-9]*\)$/\1/p' <<<"$OUT")
    case "$*" in
    *TOPOBCAST_ALGORITHM=*)
        local spec=${*#*TOPOBCAST_ALGORITHM=}
        spec=${spec%% *}
        stats_exact "$label" "${spec%%:*}" "$want"
        ;;
    *TOPOBCAST_CONFIG=*)
        check "$label: TOPOBCAST_STATS shows both MPI's and binomial broadcasts" \
            bash -c 'grep -qE "^topobcast: stats: algorithm=binomial calls=[1-9]" <<<"$1" &&
                     grep -qE "^topobcast: stats: algorithm=default calls=[1-9]" <<<"$1"' _ "$OUT"
        ;;
    *)
        check "$label: TOPOBCAST_STATS counts MPI's broadcasts only (default)" \
            bash -c 'grep -qE "^topobcast: stats: algorithm=default calls=[1-9]" <<<"$1" && [ -z "$2" ]' \
            _ "$OUT" "$(stats_others default <<<"$OUT")"
        ;;
    esac
    if [ "$order" = tool ]; then
        same_counts "$label" "${FUNCS[@]}"
        local t
        t=$(tool_seconds MPI_Bcast)
        check "$label: the tool timed its MPI_Bcast calls (${t:-?} s on the slowest rank)" \
            awk -v t="${t:-0}" 'BEGIN { exit !(t > 0) }'
    else
        case "$*" in
        *TOPOBCAST_ALGORITHM=*) zero_counts "$label" "${FUNCS[@]:0:13}" ;;
        *TOPOBCAST_CONFIG=*)
            local tb pb
            tb=$(counts ptool MPI_Bcast) pb=$(counts bcast_kinds MPI_Bcast)
            check "$label: the tool sees the MPI_Bcast calls the library leaves to MPI, not the others ($tb of $pb)" \
                bash -c 'set -- $1 $2; [ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$4" -gt "$1" ]' _ "$tb" "$pb"
            ;;
        *) same_counts "$label" "${FUNCS[@]:0:13}" ;;
        esac
        same_counts "$label" MPI_Comm_dup
    fi
}

table=$(mktemp)
trap 'rm -f "$table"' EXIT
printf 'topobcast: 1\nselection:\n  - {bytes: 0-1K, algorithm: default}\n  - {algorithm: binomial}\n' >"$table"
# shellcheck disable=SC2054 # commas separate spec parameters
for order in tool lib; do
    kinds "$order" 3 TOPOBCAST_ALGORITHM=binomial
    kinds "$order" 2 TOPOBCAST_ALGORITHM=pipeline:segment=4096
    kinds "$order" 3 TOPOBCAST_ALGORITHM=dbt
    kinds "$order" 3
    kinds "$order" 2 TOPOBCAST_CONFIG="$table"
done

# test/mpi/ibcast.c: every non-blocking path (frees while active, Waitall
# mixes, Testany, blocking point-to-point and probes while broadcasts are
# in progress) with the tool either side.
for order in tool lib; do
    prun 3 "$order" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 -- "$T/ibcast"
    ended "ibcast $order first np=3"
    stats_exact "ibcast $order first np=3" binomial "$(sed -n 's/^# ibcast broadcasts: \([0-9][0-9]*\)$/\1/p' <<<"$OUT")"
    seen=$(counts ptool MPI_Ibcast)
    seen=${seen##* }
    if [ "$order" = tool ]; then
        all=$seen
        check "ibcast tool first np=3: the tool saw the program's MPI_Ibcast calls (${seen:-?} over the ranks)" [ "${seen:-0}" -gt 0 ]
    else
        check "ibcast lib first np=3: the tool saw only the MPI_Ibcast calls the library left to MPI (${seen:-?}; ${all:-?} with the tool first)" \
            [ "${seen:-x}" -lt "${all:-0}" ]
    fi
done

# fortran_orders NP PROGRAM LABEL KEY FUNC [PER_RANK]: PROGRAM (its line
# "NAME: KEY=N", NAME its file name up to the binding, gives the broadcasts
# it made) in both orders, binomial forced: it ends, the library runs every
# broadcast, and the tool counts PER_RANK calls of FUNC on each rank
# (default N) with the tool first, none with the library first
fortran_orders() {
    local np=$1 prog=$2 label=$3 key=$4 func=$5 per=${6:-} order made want name
    name=$(basename "$prog")
    name=${name%_*}
    for order in tool lib; do
        prun "$np" "$order" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 -- "$prog"
        ended "$label $order first np=$np"
        made=$(sed -n "s/^$name: $key=\([0-9][0-9]*\)$/\1/p" <<<"$OUT" | head -1)
        stats_exact "$label $order first np=$np" binomial "$made"
        want="0 0 0"
        [ "$order" = tool ] && want="${per:-$made} ${per:-$made} $((np * ${per:-${made:-0}}))"
        check "$label $order first np=$np: the tool's $func count is $want (min max sum)" \
            [ "$(counts ptool "$func")" = "$want" ]
    done
}

# Fortran, each binding the tool alone can run.
for binding in mpi f08 mpifh; do
    PROG=$T/fortran_bcast_$binding
    require "fortran $binding" "$PROG" && tool_runs 3 "$PROG" "fortran_bcast $binding" &&
        fortran_orders 3 "$PROG" "fortran_bcast $binding" calls MPI_Bcast
done

# Fortran's MPI_IBCAST and MPI_BCAST_INIT (MPI 4: not Debian's Open MPI):
# the library's algorithm runs them too, whose waits MPICH's mpi_f08 makes
# with PMPI_Wait, which the shared library serves.
if [ "$FLAVOR" = openmpi ]; then
    ok "fortran_ibcast # skip: Open MPI 4.1 is MPI 3.1 (no MPI_BCAST_INIT)"
else
    for binding in mpi f08; do
        PROG=$T/fortran_ibcast_$binding
        require "fortran $binding" "$PROG" || continue
        prun 2 none TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 -- "$PROG"
        check "fortran_ibcast $binding, the library alone: ends (exit $RC), values right" \
            bash -c '[ "$1" -eq 0 ] && grep -q "^ok fortran ibcast and bcast_init values" <<<"$2"' _ "$RC" "$OUT"
        stats_exact "fortran_ibcast $binding, the library alone" binomial \
            "$(sed -n 's/^fortran_ibcast: broadcasts=\([0-9][0-9]*\)$/\1/p' <<<"$OUT" | head -1)"
        tool_runs 2 "$PROG" "fortran_ibcast $binding with the tool" &&
            fortran_orders 2 "$PROG" "fortran_ibcast $binding" broadcasts MPI_Ibcast 1
    done
fi

# A real PMPI tool: Open MPI's trace library prints a line per call it
# wraps (MPI_INIT, MPI_BCAST, MPI_FINALIZE, ...) on each rank.
OMPITRACE=$(mpicc.openmpi --showme:libdirs 2>/dev/null)/libompitrace.so
if [ "$FLAVOR" != openmpi ]; then
    ok "libompitrace # skip: Open MPI's trace library, for the Open MPI pass"
elif [ ! -e "$OMPITRACE" ]; then
    ok "libompitrace # skip: $OMPITRACE is not installed"
else
    for order in tool lib; do
        TOOL=$OMPITRACE prun 2 "$order" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 -- "$T/bcast_kinds"
        made=$(counts bcast_kinds MPI_Bcast)
        made=${made##* }
        [ "$order" = lib ] && made=0
        traced=$(grep -o 'MPI_BCAST\[' <<<"$OUT" | wc -l)
        check "libompitrace $order first np=2: ends (exit $RC), values right, MPI_INIT and MPI_FINALIZE traced on each rank, $traced of ${made:-?} MPI_BCAST traced" \
            bash -c '[ "$1" -eq 0 ] && grep -q "^ok bcast_kinds values" <<<"$2" && [ "$(grep -c "MPI_INIT:" <<<"$2")" -eq 2 ] &&
                     [ "$(grep -c "MPI_FINALIZE\[" <<<"$2")" -eq 2 ] && [ "$3" = "$4" ]' _ "$RC" "$OUT" "$traced" "${made:-x}"
        stats_exact "libompitrace $order first np=2" binomial "$(sed -n 's/^# broadcasts: \([0-9][0-9]*\)$/\1/p' <<<"$OUT")"
    done
fi
