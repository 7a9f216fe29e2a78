/* The MPI functions test/tool/ptool.c wraps, in the order of its report;
 * test/mpi/bcast_kinds.c counts its own calls of them and prints the
 * counts in the tool's form, for test/suites/36-pmpi-tools.sh to compare. */
#ifndef PTOOL_H
#define PTOOL_H

enum {
    FN_BCAST, FN_IBCAST, FN_BCAST_INIT, FN_START, FN_STARTALL, FN_WAIT, FN_WAITALL, FN_WAITANY, FN_WAITSOME,
    FN_TEST, FN_TESTALL, FN_TESTANY, FN_TESTSOME, FN_COMM_DUP, NF
};
static const char *const names[NF] = {"MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init", "MPI_Start", "MPI_Startall",
                                      "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test",
                                      "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Comm_dup"};

#endif
