# Builds PoCL with patches/series and this driver, and installs prefixes
# that differ only in the pthread ('cpu') device:
#   <prefix>/ours   driver/ (pocl-steal)
#   <prefix>/stock  PoCL's own lib/CL/devices/pthread, same flags
#   <prefix>/tsan   driver/ built with -fsanitize=thread
#   <prefix>/asan   driver/ built with -fsanitize=address,undefined
# Each has etc/OpenCL/vendors/pocl.icd for OCL_ICD_VENDORS.
#
# The main build is PoCL 7.1 from Debian's package, or POCL_SOURCE (7.1, 7.2
# or main), in build/pocl-src, build/pocl-build and build/prefix/*, plus a
# second build of it with the drivers linked into libpocl.  Each tree named
# in POCL_STEAL_SOURCES of another version is built the same way (without
# the linked build) in build/pocl-<version>/ (cmake/PoclVersions.cmake),
# for the tests of every version.

include(ExternalProject)

set(POCL_STEAL_CACHE_DIR "$ENV{POCL_STEAL_CACHE}")
if(NOT POCL_STEAL_CACHE_DIR)
  if(DEFINED ENV{XDG_CACHE_HOME})
    set(POCL_STEAL_CACHE_DIR "$ENV{XDG_CACHE_HOME}/pocl-steal")
  else()
    set(POCL_STEAL_CACHE_DIR "$ENV{HOME}/.cache/pocl-steal")
  endif()
endif()
# Compiled kernels, shared by every build and run of the same PoCL build.
set(POCL_KERNEL_CACHE_DIR "${POCL_STEAL_CACHE_DIR}/kcache")
file(MAKE_DIRECTORY "${POCL_KERNEL_CACHE_DIR}")

# pocl_steal_list_setting(OUT NAME DEFAULT)
#   OUT: the list the setting NAME gives (its CMake variable, else the
#   environment's, else DEFAULT; items separated by spaces or ';'), empty
#   for "none".  NAME itself is set in the caller when it was not.
function(pocl_steal_list_setting out name default)
  set(_value "${default}")
  if(DEFINED ${name})
    set(_value "${${name}}")
  elseif(DEFINED ENV{${name}})
    set(_value "$ENV{${name}}")
  endif()
  set(${name} "${_value}" PARENT_SCOPE)
  string(REPLACE " " ";" _list "${_value}")
  if(_list STREQUAL "none")
    set(_list "")
  endif()
  set(${out} "${_list}" PARENT_SCOPE)
endfunction()

# POCL_STEAL_SUITES (the environment's or a CMake variable): the PoCL
# versions on which `make check` runs PoCL's own suite, stock and ours; by
# default 7.2, the version Julia ships: each version's suite costs 10 to 12
# minutes on 2 cores with a cold kernel cache, and the driver's source and
# the glue's paths are the same on every version (its integration tests,
# tests/opencl, run on each).  A build whose suite does not run leaves
# PoCL's test programs and examples out.
pocl_steal_list_setting(POCL_STEAL_SUITE_VERSIONS POCL_STEAL_SUITES "7.2")
foreach(_v ${POCL_STEAL_SUITE_VERSIONS})
  if(NOT _v MATCHES "^(7[.]1|7[.]2|main)$")
    message(FATAL_ERROR "POCL_STEAL_SUITES='${POCL_STEAL_SUITES}' names "
      "'${_v}'; accepted: versions among 7.1, 7.2 and main, separated by "
      "spaces, or none.")
  endif()
endforeach()

# pocl_steal_suite_args(OUT_HAS OUT_ARGS VERSION)
#   OUT_HAS: whether PoCL's suite runs on VERSION (POCL_STEAL_SUITES);
#   OUT_ARGS: PoCL's CMake arguments that leave the suite out if it does not.
function(pocl_steal_suite_args out_has out_args version)
  if(version IN_LIST POCL_STEAL_SUITE_VERSIONS)
    set(${out_has} ON PARENT_SCOPE)
    set(${out_args} "" PARENT_SCOPE)
  else()
    set(${out_has} OFF PARENT_SCOPE)
    set(${out_args} -DENABLE_TESTS=OFF -DENABLE_EXAMPLES=OFF PARENT_SCOPE)
  endif()
endfunction()

# pocl_steal_kernellib_args(OUT_ARGS VERSION)
#   PoCL's CMake arguments for the CPU its kernels are compiled for.  7.2,
#   the version Julia ships, targets Haswell (AVX2, FMA, BMI2): the build
#   machine's CPU can run that code, and so can the emulated NUMA guest
#   (tests/numa), whose CPU (QEMU's TCG) has AVX2 but no AVX-512, so the
#   same prefixes serve both.  Yggdrasil's "distro" library, one variant
#   per feature level chosen at run time, would too, with four times the
#   kernel library's build steps (2596 against 650).  The other versions
#   target the build machine's CPU, PoCL's default.
function(pocl_steal_kernellib_args out_args version)
  if(version STREQUAL "7.2")
    set(${out_args} -DLLC_HOST_CPU=haswell -DKERNELLIB_HOST_CPU_VARIANTS=native
        PARENT_SCOPE)
  else()
    set(${out_args} "" PARENT_SCOPE)
  endif()
endfunction()

# pocl_steal_remote_args(OUT_ARGS VERSION)
#   PoCL's CMake arguments for PoCL-R, its remote driver: 7.2 builds the
#   `pocld` server and the `remote` client device, so that tests/remote and
#   the benchmarks serve this driver's device over TCP.  Both need nothing
#   beyond PoCL's own sources (no avahi, DHT or RDMA).  The client device
#   probes no device unless POCL_DEVICES names `remote`, so it changes
#   nothing else the prefixes run; pocld is linked with the ICD loader and
#   serves whichever prefix OCL_ICD_VENDORS names (ours or stock).
function(pocl_steal_remote_args out_args version)
  if(version STREQUAL "7.2")
    set(${out_args} -DENABLE_REMOTE_SERVER=ON -DENABLE_REMOTE_CLIENT=ON
        PARENT_SCOPE)
  else()
    set(${out_args} "" PARENT_SCOPE)
  endif()
endfunction()

# pocl_steal_add_tbb_peer(OUT_HAS TARGET VERSION SRC_DIR BUILD_DIR
#                         PREFIX_DIR AFTER)
#   PoCL's TBB device ('cpu-tbb'), the peer the benchmarks compare the
#   driver with, on 7.2, the version Julia ships, when oneTBB's CMake
#   package is there (libtbb-dev, ci/buildroot-packages.txt).  It needs a
#   build of its own: a PoCL built with ENABLE_TBB_DEVICE makes the TBB
#   device its only default CPU device (the pthread device probes none
#   while POCL_DEVICES is unset), which would change what every test and
#   benchmark of the main prefixes runs.  So TARGET configures SRC_DIR
#   again in BUILD_DIR, with the arguments of the last pocl_steal_add_pocl
#   (POCL_CMAKE_ARGS) but PoCL's own pthread device, no tests, examples,
#   poclcc or PoCL-R, after the target AFTER, and installs it into
#   PREFIX_DIR/tbb: the peer as PoCL ships it.  PREFIX_DIR/ours-tbb is a copy with our
#   module from PREFIX_DIR/ours, whose queue and event operations the TBB
#   device then uses (pocl_pthread_init_device_ops), as in a PoCL built
#   with the series and the TBB device.  OUT_HAS: whether it is built.
function(pocl_steal_add_tbb_peer out_has target version src build prefix after)
  set(${out_has} OFF PARENT_SCOPE)
  if(NOT version STREQUAL "7.2")
    return()
  endif()
  find_package(TBB CONFIG QUIET)
  if(NOT TBB_FOUND)
    message(WARNING "PoCL ${version}'s TBB device is not built: no oneTBB "
      "CMake package (Debian's libtbb-dev). Its tests are skipped and the "
      "benchmarks leave it out.")
    return()
  endif()
  message(STATUS "pocl-steal: also PoCL ${version} with its TBB device "
                 "(oneTBB ${TBB_VERSION}) into ${prefix}/tbb")
  set(_args ${POCL_CMAKE_ARGS})
  list(FILTER _args EXCLUDE REGEX
       "^-D(CMAKE_INSTALL_PREFIX|POCL_INSTALL_ICD_VENDORDIR|ENABLE_TESTS|ENABLE_EXAMPLES|POCL_PTHREAD_DEVICE_DIR|POCL_STEAL_DRIVER_DIR|ENABLE_REMOTE_SERVER|ENABLE_REMOTE_CLIENT)=")
  list(APPEND _args
    -DCMAKE_INSTALL_PREFIX=${prefix}/tbb
    -DPOCL_INSTALL_ICD_VENDORDIR=${prefix}/tbb/etc/OpenCL/vendors
    -DENABLE_TESTS=OFF
    -DENABLE_EXAMPLES=OFF
    -DENABLE_POCLCC=OFF
    -DENABLE_TBB_DEVICE=ON)
  ExternalProject_Add(${target}
    SOURCE_DIR "${src}"
    BINARY_DIR "${build}"
    INSTALL_DIR "${prefix}/tbb"
    DOWNLOAD_COMMAND ""
    UPDATE_COMMAND ""
    PATCH_COMMAND ""
    CMAKE_GENERATOR Ninja
    CMAKE_ARGS ${_args}
    LIST_SEPARATOR |
    BUILD_ALWAYS ON
    DEPENDS ${after}
    USES_TERMINAL_CONFIGURE ON
    USES_TERMINAL_BUILD ON
    USES_TERMINAL_INSTALL ON)
  add_custom_target(${target}-prefixes ALL
    COMMAND "${CMAKE_COMMAND}"
            "-DOURS=${prefix}/tbb" "-DSTOCK=${prefix}/ours-tbb"
            "-DSTOCK_MODULE=${prefix}/ours/lib/pocl/libpocl-devices-pthread.so"
            -P "${PROJECT_SOURCE_DIR}/cmake/MakeStockPrefix.cmake"
    DEPENDS ${target}
    COMMENT "Installing ${prefix}/ours-tbb: the TBB device beside our module"
    VERBATIM)
  set(${out_has} ON PARENT_SCOPE)
endfunction()

file(GLOB _patches "${PROJECT_SOURCE_DIR}/patches/*.patch")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/patches/series" ${_patches}
  "${PROJECT_SOURCE_DIR}/ci/pocl-source.lock"
  "${PROJECT_SOURCE_DIR}/ci/pocl-source.sh")

find_program(CCACHE_PROGRAM ccache)
set(_launcher "")
if(CCACHE_PROGRAM)
  # base_dir makes hits independent of where the checkout lives.
  # "|" separates list items inside ExternalProject's CMAKE_ARGS.
  set(_launcher "${CMAKE_COMMAND}|-E|env|CCACHE_DIR=${POCL_STEAL_CACHE_DIR}/ccache|CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}|${CCACHE_PROGRAM}")
endif()

# pocl_steal_pocl_source(OUT SOURCE DEST [--pristine])
#   Runs ci/pocl-source.sh with POCL_SOURCE=SOURCE ("": Debian's 7.1) to
#   make DEST, and sets OUT to the list "NAME LLVM_MIN LLVM_MAX UPSTREAM"
#   it wrote into DEST/.pocl-steal-version.  ci/pocl-source.sh does
#   nothing when neither source nor patches changed.
function(pocl_steal_pocl_source out source dest)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "POCL_SOURCE=${source}"
            "${PROJECT_SOURCE_DIR}/ci/pocl-source.sh" ${ARGN} "${dest}"
    RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "Preparing the PoCL source '${source}' failed (see above).")
  endif()
  file(READ "${dest}/.pocl-steal-version" _v)
  string(STRIP "${_v}" _v)
  string(REPLACE " " ";" _v "${_v}")
  set(${out} "${_v}" PARENT_SCOPE)
endfunction()

# pocl_steal_find_llvm(OUT MIN MAX)
#   OUT: LLVM_CONFIG (the variable or the environment's) when its LLVM is
#   MIN..MAX, else the highest llvm-config-MAX..MIN found; "" if none fits.
function(pocl_steal_find_llvm out min max)
  set(_given "${LLVM_CONFIG}")
  if(NOT _given AND DEFINED ENV{LLVM_CONFIG})
    set(_given "$ENV{LLVM_CONFIG}")
  endif()
  set(_names "")
  foreach(v RANGE ${max} ${min} -1)
    list(APPEND _names llvm-config-${v})
  endforeach()
  find_program(POCL_STEAL_LLVM_CONFIG_${min}_${max} NAMES ${_names} llvm-config)
  set(${out} "" PARENT_SCOPE)
  foreach(c "${_given}" "${POCL_STEAL_LLVM_CONFIG_${min}_${max}}")
    if(c)
      execute_process(COMMAND "${c}" --version
                      OUTPUT_VARIABLE _ver RESULT_VARIABLE _rc
                      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      string(REGEX MATCH "^[0-9]+" _major "${_ver}")
      if(_rc EQUAL 0 AND _major AND NOT _major LESS min
         AND NOT _major GREATER max)
        set(${out} "${c}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

# pocl_steal_has_failed_dependency(OUT SRC_DIR)
#   OUT: whether the PoCL in SRC_DIR marks commands whose dependency failed
#   before they were enqueued (main's failed_dependency), which its device
#   must fail without running them; the same test as driver/CMakeLists.txt
#   makes for the driver's POCL_STEAL_FAILED_DEPENDENCY.
function(pocl_steal_has_failed_dependency out src)
  file(READ "${src}/lib/CL/pocl_cl.h" _h)
  if(_h MATCHES "[ \t]failed_dependency;")
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# pocl_steal_add_pocl(TARGET SRC_DIR BUILD_DIR PREFIX_DIR LLVM_CONFIG
#                     [EXTRA_ARGS...])
#   An ExternalProject TARGET building SRC_DIR in BUILD_DIR with the pthread
#   device from cmake/pthread-pair, installed into PREFIX_DIR/ours, and a
#   target TARGET-prefixes making PREFIX_DIR/{stock,tsan,asan} from it.
#   Sets POCL_CMAKE_ARGS in the caller to the arguments it used.
function(pocl_steal_add_pocl target src build prefix llvm_config)
  set(_args
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_INSTALL_PREFIX=${prefix}/ours
    -DPOCL_INSTALL_ICD_VENDORDIR=${prefix}/ours/etc/OpenCL/vendors
    -DLLVM_CONFIG=${llvm_config}
    -DENABLE_ICD=ON
    -DENABLE_LOADABLE_DRIVERS=ON
    -DENABLE_TESTS=ON
    -DPOCL_PTHREAD_DEVICE_DIR=${PROJECT_SOURCE_DIR}/cmake/pthread-pair
    -DPOCL_STEAL_DRIVER_DIR=${PROJECT_SOURCE_DIR}/driver)
  if(_launcher)
    list(APPEND _args
      "-DCMAKE_C_COMPILER_LAUNCHER=${_launcher}"
      "-DCMAKE_CXX_COMPILER_LAUNCHER=${_launcher}")
  endif()
  # The build's stamp from the tree, the series and the LLVM, so that the
  # kernel cache outlives a fresh configuration (cmake/PoclBuildTimestamp.cmake);
  # a tree that is none of the upstream trees keeps PoCL's clock stamp, as
  # its content may change under the same name.
  file(STRINGS "${src}/.pocl-steal-version" _identity LIMIT_COUNT 1)
  if(NOT _identity MATCHES " own-tree$")
    execute_process(COMMAND "${llvm_config}" --version
                    OUTPUT_VARIABLE _llvm_version OUTPUT_STRIP_TRAILING_WHITESPACE)
    file(GLOB _patch_files "${PROJECT_SOURCE_DIR}/patches/*.patch")
    list(SORT _patch_files)
    set(_seed "${_identity} LLVM ${_llvm_version}")
    foreach(f "${PROJECT_SOURCE_DIR}/patches/series" ${_patch_files})
      file(SHA256 "${f}" _h)
      string(APPEND _seed " ${_h}")
    endforeach()
    string(SHA256 _h "${_seed}")
    string(SUBSTRING "${_h}" 0 7 _h)
    math(EXPR _epoch "0x${_h}")
    list(APPEND _args
      "-DCMAKE_PROJECT_INCLUDE_BEFORE=${PROJECT_SOURCE_DIR}/cmake/PoclBuildTimestamp.cmake"
      "-DPOCL_STEAL_SOURCE_DATE_EPOCH=${_epoch}")
  endif()
  list(APPEND _args ${POCL_STEAL_EXTRA_POCL_ARGS} ${ARGN})
  set(POCL_CMAKE_ARGS "${_args}" PARENT_SCOPE)

  ExternalProject_Add(${target}
    SOURCE_DIR "${src}"
    BINARY_DIR "${build}"
    INSTALL_DIR "${prefix}/ours"
    DOWNLOAD_COMMAND ""
    UPDATE_COMMAND ""
    PATCH_COMMAND ""
    CMAKE_GENERATOR Ninja
    CMAKE_ARGS ${_args}
    LIST_SEPARATOR |
    BUILD_ALWAYS ON
    USES_TERMINAL_CONFIGURE ON
    USES_TERMINAL_BUILD ON
    USES_TERMINAL_INSTALL ON)

  # The other prefixes are copies of ours with another pthread module:
  # stock (PoCL's own), tsan and asan (ours instrumented).
  set(_pthread_build "${build}/lib/CL/devices/pthread")
  set(_commands "")
  foreach(v stock tsan asan)
    list(APPEND _commands
      COMMAND "${CMAKE_COMMAND}"
              "-DOURS=${prefix}/ours" "-DSTOCK=${prefix}/${v}"
              "-DSTOCK_MODULE=${_pthread_build}/${v}/libpocl-devices-pthread.so"
              -P "${PROJECT_SOURCE_DIR}/cmake/MakeStockPrefix.cmake")
  endforeach()
  add_custom_target(${target}-prefixes ALL
    ${_commands}
    DEPENDS ${target}
    COMMENT "Installing the stock, tsan and asan prefixes next to ${prefix}/ours"
    VERBATIM)
endfunction()

# The main build.
set(POCL_SRC_DIR "${CMAKE_BINARY_DIR}/pocl-src")
set(POCL_BUILD_DIR "${CMAKE_BINARY_DIR}/pocl-build")
pocl_steal_pocl_source(_main_version "$ENV{POCL_SOURCE}" "${POCL_SRC_DIR}")
list(GET _main_version 0 POCL_VERSION)
list(GET _main_version 1 _llvm_min)
list(GET _main_version 2 _llvm_max)
list(GET _main_version 3 POCL_UPSTREAM)
pocl_steal_find_llvm(_llvm "${_llvm_min}" "${_llvm_max}")
if(NOT _llvm)
  message(FATAL_ERROR "No llvm-config of LLVM ${_llvm_min}..${_llvm_max} "
    "found; PoCL ${POCL_VERSION} needs one. Set LLVM_CONFIG, or use the "
    "README's commands, which build in a Debian 13 root that has LLVM 19.")
endif()
if(LLVM_CONFIG AND NOT LLVM_CONFIG STREQUAL _llvm)
  message(WARNING "LLVM_CONFIG='${LLVM_CONFIG}' is not an LLVM "
    "${_llvm_min}..${_llvm_max}, which PoCL ${POCL_VERSION} needs; using "
    "${_llvm} instead.")
endif()
set(LLVM_CONFIG "${_llvm}")
message(STATUS "pocl-steal: PoCL ${POCL_VERSION} (${POCL_UPSTREAM}) with "
               "LLVM ${LLVM_CONFIG} into ${CMAKE_BINARY_DIR}/prefix")
foreach(v OURS STOCK TSAN ASAN TBB OURS_TBB)
  string(TOLOWER ${v} _v)
  string(REPLACE "_" "-" _v "${_v}")
  set(POCL_PREFIX_${v} "${CMAKE_BINARY_DIR}/prefix/${_v}")
endforeach()
pocl_steal_suite_args(POCL_HAS_SUITE _suite_args "${POCL_VERSION}")
pocl_steal_kernellib_args(_kernellib_args "${POCL_VERSION}")
pocl_steal_remote_args(_remote_args "${POCL_VERSION}")
pocl_steal_add_pocl(pocl "${POCL_SRC_DIR}" "${POCL_BUILD_DIR}"
                    "${CMAKE_BINARY_DIR}/prefix" "${LLVM_CONFIG}"
                    ${_suite_args} ${_kernellib_args} ${_remote_args})
pocl_steal_has_failed_dependency(POCL_HAS_FAILED_DEPENDENCY "${POCL_SRC_DIR}")

# The same source with the drivers linked into libpocl
# (ENABLE_LOADABLE_DRIVERS=OFF), as Julia's packages build PoCL, and our
# driver given directly as POCL_PTHREAD_DEVICE_DIR: the other way patch
# 0001 must work.  Only libpocl and what it needs at run time are built
# (no tests, examples or poclcc), after the main build so that the two do
# not compete for the cores.
set(POCL_PREFIX_LINKED "${CMAKE_BINARY_DIR}/prefix/linked")
set(POCL_LINKED_CMAKE_ARGS ${POCL_CMAKE_ARGS})
list(FILTER POCL_LINKED_CMAKE_ARGS EXCLUDE REGEX
     "^-D(CMAKE_INSTALL_PREFIX|POCL_INSTALL_ICD_VENDORDIR|ENABLE_LOADABLE_DRIVERS|ENABLE_TESTS|POCL_PTHREAD_DEVICE_DIR|POCL_STEAL_DRIVER_DIR)=")
list(APPEND POCL_LINKED_CMAKE_ARGS
  -DCMAKE_INSTALL_PREFIX=${POCL_PREFIX_LINKED}
  -DPOCL_INSTALL_ICD_VENDORDIR=${POCL_PREFIX_LINKED}/etc/OpenCL/vendors
  -DENABLE_LOADABLE_DRIVERS=OFF
  -DENABLE_TESTS=OFF
  -DENABLE_EXAMPLES=OFF
  -DENABLE_POCLCC=OFF
  -DPOCL_PTHREAD_DEVICE_DIR=${PROJECT_SOURCE_DIR}/driver)
ExternalProject_Add(pocl-linked
  SOURCE_DIR "${POCL_SRC_DIR}"
  BINARY_DIR "${CMAKE_BINARY_DIR}/pocl-build-linked"
  INSTALL_DIR "${POCL_PREFIX_LINKED}"
  DOWNLOAD_COMMAND ""
  UPDATE_COMMAND ""
  PATCH_COMMAND ""
  CMAKE_GENERATOR Ninja
  CMAKE_ARGS ${POCL_LINKED_CMAKE_ARGS}
  LIST_SEPARATOR |
  BUILD_ALWAYS ON
  DEPENDS pocl
  USES_TERMINAL_CONFIGURE ON
  USES_TERMINAL_BUILD ON
  USES_TERMINAL_INSTALL ON)
# The main build's TBB peer, when it is 7.2 (POCL_SOURCE).
pocl_steal_add_tbb_peer(POCL_HAS_TBB pocl-tbb "${POCL_VERSION}"
  "${POCL_SRC_DIR}" "${CMAKE_BINARY_DIR}/pocl-build-tbb"
  "${CMAKE_BINARY_DIR}/prefix" "pocl-linked;pocl-prefixes")

include(cmake/PoclVersions.cmake)
