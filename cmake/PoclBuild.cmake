# Builds PoCL v7.1 with patches/series and this driver, and installs two
# prefixes that differ only in the pthread ('cpu') device:
#   ${POCL_PREFIX_OURS}   driver/ (pocl-steal)
#   ${POCL_PREFIX_STOCK}  PoCL's own lib/CL/devices/pthread, same flags
#   ${POCL_PREFIX_TSAN}   driver/ built with -fsanitize=thread
#   ${POCL_PREFIX_ASAN}   driver/ built with -fsanitize=address,undefined
# Each has etc/OpenCL/vendors/pocl.icd for OCL_ICD_VENDORS.

include(ExternalProject)

set(POCL_SRC_DIR "${CMAKE_BINARY_DIR}/pocl-src")
set(POCL_BUILD_DIR "${CMAKE_BINARY_DIR}/pocl-build")
set(POCL_PREFIX_OURS "${CMAKE_BINARY_DIR}/prefix/ours")
set(POCL_PREFIX_STOCK "${CMAKE_BINARY_DIR}/prefix/stock")
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

# The source tree: downloaded (or POCL_SOURCE) and patched at configure
# time; ci/pocl-source.sh does nothing when neither source nor patches
# changed.
execute_process(
  COMMAND "${PROJECT_SOURCE_DIR}/ci/pocl-source.sh" "${POCL_SRC_DIR}"
  RESULT_VARIABLE _src_rc)
if(NOT _src_rc EQUAL 0)
  message(FATAL_ERROR "Preparing the PoCL source failed (see above).")
endif()
file(GLOB _patches "${PROJECT_SOURCE_DIR}/patches/*.patch")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/patches/series" ${_patches}
  "${PROJECT_SOURCE_DIR}/ci/pocl-source.lock"
  "${PROJECT_SOURCE_DIR}/ci/pocl-source.sh")

# LLVM 17..21, highest first, unless LLVM_CONFIG names one.
if(NOT LLVM_CONFIG)
  if(DEFINED ENV{LLVM_CONFIG})
    set(LLVM_CONFIG "$ENV{LLVM_CONFIG}")
  else()
    find_program(LLVM_CONFIG NAMES llvm-config-21 llvm-config-20
                 llvm-config-19 llvm-config-18 llvm-config-17 llvm-config)
  endif()
endif()
if(NOT LLVM_CONFIG)
  message(FATAL_ERROR "No llvm-config of LLVM 17..21 found; PoCL 7.1 needs "
    "one. Set LLVM_CONFIG, or use the README's commands, which build in a "
    "Debian 13 root that has LLVM 19.")
endif()

find_program(CCACHE_PROGRAM ccache)
set(_launcher "")
if(CCACHE_PROGRAM)
  # base_dir makes hits independent of where the checkout lives.
  # "|" separates list items inside ExternalProject's CMAKE_ARGS.
  set(_launcher "${CMAKE_COMMAND}|-E|env|CCACHE_DIR=${POCL_STEAL_CACHE_DIR}/ccache|CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}|${CCACHE_PROGRAM}")
endif()

# PoCL's defaults apart from: ICD on, loadable drivers (so the two prefixes
# share one build), its tests, and our pthread device.
set(POCL_CMAKE_ARGS
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_INSTALL_PREFIX=${POCL_PREFIX_OURS}
  -DPOCL_INSTALL_ICD_VENDORDIR=${POCL_PREFIX_OURS}/etc/OpenCL/vendors
  -DLLVM_CONFIG=${LLVM_CONFIG}
  -DENABLE_ICD=ON
  -DENABLE_LOADABLE_DRIVERS=ON
  -DENABLE_TESTS=ON
  -DPOCL_PTHREAD_DEVICE_DIR=${PROJECT_SOURCE_DIR}/cmake/pthread-pair
  -DPOCL_STEAL_DRIVER_DIR=${PROJECT_SOURCE_DIR}/driver)
if(_launcher)
  list(APPEND POCL_CMAKE_ARGS
    "-DCMAKE_C_COMPILER_LAUNCHER=${_launcher}"
    "-DCMAKE_CXX_COMPILER_LAUNCHER=${_launcher}")
endif()
list(APPEND POCL_CMAKE_ARGS ${POCL_STEAL_EXTRA_POCL_ARGS})

ExternalProject_Add(pocl
  SOURCE_DIR "${POCL_SRC_DIR}"
  BINARY_DIR "${POCL_BUILD_DIR}"
  INSTALL_DIR "${POCL_PREFIX_OURS}"
  DOWNLOAD_COMMAND ""
  UPDATE_COMMAND ""
  PATCH_COMMAND ""
  CMAKE_GENERATOR Ninja
  CMAKE_ARGS ${POCL_CMAKE_ARGS}
  LIST_SEPARATOR |
  BUILD_ALWAYS ON
  USES_TERMINAL_CONFIGURE ON
  USES_TERMINAL_BUILD ON
  USES_TERMINAL_INSTALL ON)

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

# The other prefixes are copies of ours with another pthread module: stock
# (PoCL's own), tsan and asan (ours instrumented, for the sanitizer tests).
set(_pthread_build "${POCL_BUILD_DIR}/lib/CL/devices/pthread")
set(_prefix_commands "")
foreach(v stock tsan asan)
  string(TOUPPER ${v} _V)
  set(POCL_PREFIX_${_V} "${CMAKE_BINARY_DIR}/prefix/${v}")
  list(APPEND _prefix_commands
    COMMAND "${CMAKE_COMMAND}"
            "-DOURS=${POCL_PREFIX_OURS}" "-DSTOCK=${POCL_PREFIX_${_V}}"
            "-DSTOCK_MODULE=${_pthread_build}/${v}/libpocl-devices-pthread.so"
            -P "${PROJECT_SOURCE_DIR}/cmake/MakeStockPrefix.cmake")
endforeach()
add_custom_target(pocl-prefixes ALL
  ${_prefix_commands}
  DEPENDS pocl
  COMMENT "Installing the stock, tsan and asan prefixes next to ours"
  VERBATIM)
