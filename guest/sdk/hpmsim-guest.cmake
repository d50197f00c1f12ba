# CMake toolchain file of hpmsim's guest SDK (docs/sdk.md): a project configured with
#   cmake -DCMAKE_TOOLCHAIN_FILE=<sdk>/share/cmake/hpmsim-guest.cmake ...
# builds static RISC-V (RV64GC) Linux programs for hpmsim with the SDK's wrappers (which add
# -static and the SDK's include and library folders), finds the SDK's libraries and headers
# before the host's, its pkg-config files instead of the host's, and MPI (find_package(MPI))
# through its MPI wrappers. The SDK is found from this file's place, so it can move.
get_filename_component(HPMSIM_SDK_DIR "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(CMAKE_C_COMPILER ${HPMSIM_SDK_DIR}/bin/hpm-cc)
set(CMAKE_CXX_COMPILER ${HPMSIM_SDK_DIR}/bin/hpm-c++)
set(CMAKE_Fortran_COMPILER ${HPMSIM_SDK_DIR}/bin/hpm-f90)
set(MPI_C_COMPILER ${HPMSIM_SDK_DIR}/bin/mpicc)
set(MPI_CXX_COMPILER ${HPMSIM_SDK_DIR}/bin/mpicxx)
set(MPI_Fortran_COMPILER ${HPMSIM_SDK_DIR}/bin/mpif90)

# Libraries, headers and packages from the SDK and Debian's riscv64 C library; programs (build
# tools) from the host.
set(CMAKE_FIND_ROOT_PATH ${HPMSIM_SDK_DIR} /usr/riscv64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} ${HPMSIM_SDK_DIR}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
