# Guest programs: RISC-V (RV64GC) Linux binaries built with Debian's cross compiler, statically
# linked, so the simulator and qemu-riscv64 run the very same file. They are built as users
# build theirs, with the guest SDK's compiler wrappers (guest/sdk, docs/sdk.md), into whose
# lib/ folder the guest libraries go.
find_program(HPM_RISCV_CC riscv64-linux-gnu-gcc REQUIRED)
find_program(HPM_RISCV_CXX riscv64-linux-gnu-g++ REQUIRED)
find_program(HPM_RISCV_AR riscv64-linux-gnu-ar REQUIRED)
# Fortran is optional to the build (the demo's packages lack it; the tests need it): without
# it, the SDK's Fortran wrappers say that it is missing.
find_program(HPM_RISCV_FC riscv64-linux-gnu-gfortran)
set(HPM_SDK_DIR ${PROJECT_BINARY_DIR}/sdk CACHE INTERNAL "")
set(HPM_GUEST_BIN_DIR ${PROJECT_BINARY_DIR}/guest/bin CACHE INTERNAL "")
set(HPM_GUEST_LIB_DIR ${HPM_SDK_DIR}/lib CACHE INTERNAL "")
set(HPM_GUEST_OBJ_DIR ${PROJECT_BINARY_DIR}/guest/obj CACHE INTERNAL "")
set(HPM_GUEST_COMMON_FLAGS -O2 -g -Wall -Wextra -Werror CACHE INTERNAL "")
add_custom_target(guests ALL)
# The guest SDK (guest/sdk): the libraries and the headers.
add_custom_target(sdk)
add_dependencies(guests sdk)
# The libraries under libpapi, which the SDK's wrappers name at the end of every link (so that
# -lpapi alone links): every guest program's link waits for them.
set(HPM_SDK_SUPPORT_LIBS bgpm hpmctr CACHE INTERNAL "")

# Include flags for the given directories, and their headers as dependencies (custom commands
# get no header scanning under Ninja, so a header change must rebuild its users explicitly).
function(hpm_guest_includes out_flags out_headers)
  set(flags "")
  set(headers "")
  foreach(inc IN LISTS ARGN)
    get_filename_component(abs_inc "${inc}" ABSOLUTE)
    list(APPEND flags -I${abs_inc})
    file(GLOB found CONFIGURE_DEPENDS ${abs_inc}/*.h)
    list(APPEND headers ${found})
  endforeach()
  set(${out_flags} ${flags} PARENT_SCOPE)
  set(${out_headers} ${headers} PARENT_SCOPE)
endfunction()

# hpm_guest_library(NAME SOURCES src... [INCLUDES dir...] [FLAGS f...] [EXTRA_DEPENDS file...])
# Builds ${HPM_GUEST_LIB_DIR}/libNAME.a for guest programs to link with LIBS NAME. EXTRA_DEPENDS:
# generated headers its sources include. A source's own flags, after FLAGS: its property
# HPM_GUEST_FLAGS (set_source_files_properties in the caller's folder).
function(hpm_guest_library name)
  cmake_parse_arguments(G "" "" "SOURCES;INCLUDES;FLAGS;EXTRA_DEPENDS" ${ARGN})
  hpm_guest_includes(includes headers ${G_INCLUDES})
  set(objects "")
  foreach(src IN LISTS G_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(base "${src}" NAME_WE)
    set(obj ${HPM_GUEST_OBJ_DIR}/${name}/${base}.o)
    get_source_file_property(own ${abs} HPM_GUEST_FLAGS)
    if(NOT own)
      set(own "")
    endif()
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${HPM_GUEST_OBJ_DIR}/${name}
      COMMAND ${HPM_SDK_DIR}/bin/hpm-cc ${HPM_GUEST_COMMON_FLAGS} ${G_FLAGS} ${own} ${includes} -c ${abs}
              -o ${obj}
      DEPENDS ${abs} ${headers} ${G_EXTRA_DEPENDS} ${HPM_SDK_DIR}/bin/hpm-cc
      COMMENT "guest cc ${src}")
    list(APPEND objects ${obj})
  endforeach()
  set(lib ${HPM_GUEST_LIB_DIR}/lib${name}.a)
  add_custom_command(OUTPUT ${lib} COMMAND ${CMAKE_COMMAND} -E rm -f ${lib}
                     COMMAND ${HPM_RISCV_AR} rcs ${lib} ${objects} DEPENDS ${objects}
                     COMMENT "guest ar lib${name}.a")
  add_custom_target(guestlib_${name} DEPENDS ${lib})
  add_dependencies(sdk guestlib_${name})
endfunction()

# hpm_guest_program(NAME SOURCES src... [CXX|FORTRAN] [OPENMP] [PIE] [FLAGS f...] [LIBS lib...]
#                   [INCLUDES dir...])
# Builds ${HPM_GUEST_BIN_DIR}/NAME, a static RV64GC executable, with the SDK's wrapper for its
# language (hpm-cc, hpm-c++, hpm-f90; mpicc, mpicxx, mpif90 when it links libmpi). LIBS are
# linked in their order, before libm; the libraries the wrapper adds come after them and add
# nothing to a program that names those it uses (so the programs are those the compiler itself
# built before the SDK: the same code at the same addresses).
function(hpm_guest_program name)
  cmake_parse_arguments(G "CXX;FORTRAN;OPENMP;PIE" "" "SOURCES;FLAGS;LIBS;INCLUDES" ${ARGN})
  set(wrappers hpm-cc mpicc)
  if(G_CXX)
    set(wrappers hpm-c++ mpicxx)
  elseif(G_FORTRAN)
    set(wrappers hpm-f90 mpif90)
  endif()
  if(mpi IN_LIST G_LIBS)
    list(GET wrappers 1 compiler)
  else()
    list(GET wrappers 0 compiler)
  endif()
  set(compiler ${HPM_SDK_DIR}/bin/${compiler})
  set(flags ${HPM_GUEST_COMMON_FLAGS} ${G_FLAGS})
  if(G_PIE)
    list(APPEND flags -static-pie -fPIE)
  endif()
  if(G_OPENMP)
    list(APPEND flags -fopenmp)
  endif()
  set(sources "")
  foreach(src IN LISTS G_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    list(APPEND sources ${abs})
  endforeach()
  hpm_guest_includes(includes headers ${G_INCLUDES})
  set(libs "")
  set(lib_deps "")
  foreach(lib IN LISTS G_LIBS)
    list(APPEND libs -l${lib})
    list(APPEND lib_deps guestlib_${lib} ${HPM_GUEST_LIB_DIR}/lib${lib}.a)
  endforeach()
  set(out ${HPM_GUEST_BIN_DIR}/${name})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${HPM_GUEST_BIN_DIR}
    COMMAND ${compiler} ${flags} ${includes} -o ${out} ${sources} ${libs} -lm
    DEPENDS ${sources} ${headers} ${lib_deps} ${compiler}
    COMMENT "guest build ${name}")
  add_custom_target(guest_${name} DEPENDS ${out})
  add_dependencies(guests guest_${name})
  foreach(lib IN LISTS HPM_SDK_SUPPORT_LIBS)
    add_dependencies(guest_${name} guestlib_${lib})
  endforeach()
endfunction()
