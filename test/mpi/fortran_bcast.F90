! Fortran programs reach the library through the MPI library's Fortran
! bindings.  This program makes a known number of MPI_BCAST calls, checks
! every received value, and prints that number so the suite can compare it
! with the library's statistics.  One source, three bindings, chosen by the
! preprocessor: USE_F08 (use mpi_f08), USE_MPIFH (include 'mpif.h'), or
! neither (use mpi).  The calls are the same in all three.
program fortran_bcast
#if defined(USE_F08)
    use mpi_f08
#elif !defined(USE_MPIFH)
    use mpi
#endif
    implicit none
#if defined(USE_MPIFH)
    include 'mpif.h'
#endif
#if defined(USE_MPIFH) || (!defined(USE_F08) && !defined(MPI_MODULE_TYPED))
    ! MPICH's mpi module and mpif.h leave choice-buffer routines without an
    ! interface, so gfortran -Wall flags calls with different buffer types; an
    ! assumed-type interface states that any buffer is fine (the call is
    ! unchanged).  Open MPI's mpi module has the interface already
    ! (MPI_MODULE_TYPED).
    interface
        subroutine MPI_BCAST(buffer, count, datatype, root, comm, ierror)
            type(*), dimension(*) :: buffer
            integer :: count, datatype, root, comm, ierror
        end subroutine MPI_BCAST
    end interface
#endif
    integer, parameter :: n = 1000
    integer :: ierr, rank, nprocs, root, i, errors, nbcast, total_errors
    integer :: ivals(n)
    double precision :: dvals(n)
    integer :: scalar(1)

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    errors = 0
    nbcast = 0

    do root = 0, nprocs - 1
        ! integers, filled only at the root
        if (rank == root) then
            do i = 1, n
                ivals(i) = i * 7 + root * 1000
            end do
        else
            ivals = -1
        end if
        call MPI_BCAST(ivals, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
        nbcast = nbcast + 1
        if (ierr /= MPI_SUCCESS) errors = errors + 1
        do i = 1, n
            if (ivals(i) /= i * 7 + root * 1000) errors = errors + 1
        end do

        ! doubles
        if (rank == root) then
            do i = 1, n
                dvals(i) = dble(i) * 0.25d0 + dble(root)
            end do
        else
            dvals = -1.0d0
        end if
        call MPI_BCAST(dvals, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
        nbcast = nbcast + 1
        if (ierr /= MPI_SUCCESS) errors = errors + 1
        do i = 1, n
            if (dvals(i) /= dble(i) * 0.25d0 + dble(root)) errors = errors + 1
        end do

        ! a single integer
        if (rank == root) then
            scalar(1) = 4242 + root
        else
            scalar(1) = 0
        end if
        call MPI_BCAST(scalar, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
        nbcast = nbcast + 1
        if (ierr /= MPI_SUCCESS) errors = errors + 1
        if (scalar(1) /= 4242 + root) errors = errors + 1
    end do

    call MPI_REDUCE(errors, total_errors, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total_errors == 0) then
            write (*, '(A,I0,A)') 'ok fortran MPI_BCAST values (', nbcast, ' calls)'
        else
            write (*, '(A,I0,A)') 'not ok fortran MPI_BCAST values (', total_errors, ' wrong)'
        end if
        write (*, '(A,I0)') 'fortran_bcast: calls=', nbcast
    end if
    call MPI_FINALIZE(ierr)
end program fortran_bcast
