! Fortran through the guest SDK's hpm-f90 (docs/sdk.md): libgfortran's formatted I/O, array
! intrinsics, a derived type, a module procedure and character handling, under hpmsim and
! qemu-riscv64 alike (tests/guest).
module shapes
  implicit none
  type :: box
    real(8) :: w, h
  end type box
contains
  pure function area(b) result(a)
    type(box), intent(in) :: b
    real(8) :: a
    a = b%w * b%h
  end function area
end module shapes

program fortran_basics
  use shapes
  implicit none
  integer :: i, n
  integer, parameter :: m = 6
  real(8) :: x(m), a(3, 3), v(3)
  type(box) :: boxes(3)
  character(len=32) :: line
  integer(8) :: fact

  do i = 1, m
    x(i) = 1.0d0 / dble(i)
  end do
  print '(a, f12.9)', 'harmonic sum: ', sum(x)
  print '(a, es14.6)', 'max and product: ', maxval(x) * product(x)

  a = reshape([(dble(i), i = 1, 9)], [3, 3])
  v = matmul(a, [1.0d0, 2.0d0, 3.0d0])
  print '(a, 3f8.2)', 'matmul: ', v
  print '(a, 6f6.1)', 'columns 1 and 3, transposed: ', transpose(a(:, 1:3:2))

  boxes = [box(1.5d0, 2.0d0), box(3.0d0, 0.25d0), box(2.0d0, 2.0d0)]
  print '(a, f8.3)', 'areas: ', sum([(area(boxes(i)), i = 1, 3)])

  fact = 1
  do i = 2, 20
    fact = fact * i
  end do
  print '(a, i0)', '20! = ', fact

  write (line, '(a, i4.4, a)') 'id-', 42, '-end'
  n = len_trim(line)
  print '(a, a, a, i0)', 'internal write: ', line(1:n), ' length ', n
  print '(a, a)', 'upper: ', to_upper('hello, fortran')
contains
  function to_upper(s) result(u)
    character(len=*), intent(in) :: s
    character(len=len(s)) :: u
    integer :: k
    u = s
    do k = 1, len(s)
      if (s(k:k) >= 'a' .and. s(k:k) <= 'z') u(k:k) = achar(iachar(s(k:k)) - 32)
    end do
  end function to_upper
end program fortran_basics
