! MPI_IBCAST and MPI_BCAST_INIT through a Fortran binding (use mpi, or
! use mpi_f08 with USE_F08).  MPICH's mpi_f08 waits with PMPI_Wait, which
! only the shared library serves (the static one leaves Fortran's
! non-blocking and persistent broadcasts to MPI): this program must end,
! with correct values, and prints how many broadcasts it made
! ("fortran_ibcast: broadcasts=N") for the suites to compare with the
! library's statistics.
program fortran_ibcast
#if defined(USE_F08)
    use mpi_f08
    implicit none
    type(MPI_Request) :: req, preq
#else
    use mpi
    implicit none
    integer :: req, preq
    interface
        subroutine MPI_IBCAST(buffer, count, datatype, root, comm, request, ierror)
            type(*), dimension(*) :: buffer
            integer :: count, datatype, root, comm, request, ierror
        end subroutine MPI_IBCAST
        subroutine MPI_BCAST_INIT(buffer, count, datatype, root, comm, info, request, ierror)
            type(*), dimension(*) :: buffer
            integer :: count, datatype, root, comm, info, request, ierror
        end subroutine MPI_BCAST_INIT
    end interface
#endif
    integer, parameter :: n = 300000
    integer :: ierr, rank, i, it, errors, total, nbcast
    integer, allocatable :: buf(:)

    allocate(buf(n))
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    errors = 0
    nbcast = 0
    buf = -1
    if (rank == 0) buf = [(i, i = 1, n)]
    call MPI_IBCAST(buf, n, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    nbcast = nbcast + 1
    errors = errors + count(buf /= [(i, i = 1, n)])
    call MPI_BCAST_INIT(buf, n, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, preq, ierr)
    do it = 1, 3
        buf = -1
        if (rank == 0) buf = [(i + it, i = 1, n)]
        call MPI_START(preq, ierr)
        call MPI_WAIT(preq, MPI_STATUS_IGNORE, ierr)
        nbcast = nbcast + 1
        errors = errors + count(buf /= [(i + it, i = 1, n)])
    end do
    call MPI_REQUEST_FREE(preq, ierr)
    call MPI_REDUCE(errors, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total == 0) then
            print '(a)', 'ok fortran ibcast and bcast_init values'
        else
            print '(a,i0,a)', 'not ok fortran ibcast and bcast_init values (', total, ' wrong)'
        end if
        print '(a,i0)', 'fortran_ibcast: broadcasts=', nbcast
    end if
    call MPI_FINALIZE(ierr)
end program fortran_ibcast
