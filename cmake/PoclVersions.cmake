# The other PoCL versions the tests run on: each tree or tarball named in
# POCL_STEAL_SOURCES (the environment's or a CMake variable; separated by
# spaces or ';') whose version differs from the main build's is prepared
# with patches/series and built like the main build (ours, stock, tsan and
# asan prefixes; no linked build) in build/pocl-<version>/.  Unset, it is
# the pristine upstream tarballs in the project's shared source folder
# (../shared/pocl-src beside the checkout, by its real path:
# cmake/SharedSources.cmake) when there is one; "none" builds
# no other version.
#
# Sets, for the tests:
#   POCL_STEAL_SOURCE_LIST        the trees and tarballs named, as a list
#   POCL_STEAL_VERSIONS           the versions built (7.2, main)
#   POCL_STEAL_VERSIONS_MISSING   "version|why" of those that are not
#   POCL_BUILD_DIR_<v>, POCL_SOURCE_<v> (the tree or tarball it came from),
#   POCL_UPSTREAM_<v> (which upstream tree that is, or own-tree),
#   POCL_PREFIX_{OURS,STOCK,TSAN,ASAN}_<v>,
#   POCL_PREFIX_{TBB,OURS_TBB}_<v> (where POCL_HAS_TBB_<v>),
#   POCL_HAS_FAILED_DEPENDENCY_<v>,
#   POCL_HAS_SUITE_<v>            whether PoCL's own suite runs on it
#                                 (POCL_STEAL_SUITES, cmake/PoclBuild.cmake)
#   POCL_HAS_TBB_<v>              whether its TBB device is built (the
#                                 peer, pocl_steal_add_tbb_peer)

set(TOP "${PROJECT_SOURCE_DIR}")
include(cmake/SharedSources.cmake)
pocl_steal_list_setting(POCL_STEAL_SOURCE_LIST POCL_STEAL_SOURCES
                        "${POCL_STEAL_SHARED_SOURCE_LIST}")

set(POCL_STEAL_VERSIONS "")
set(POCL_STEAL_VERSIONS_MISSING "")
set(_previous pocl-linked)
# ci/pocl-source.sh names the setting in its messages.
set(ENV{POCL_SOURCE_SETTING} POCL_STEAL_SOURCES)
foreach(_source ${POCL_STEAL_SOURCE_LIST})
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "POCL_SOURCE=${_source}"
            "${PROJECT_SOURCE_DIR}/ci/pocl-source.sh" --version
    OUTPUT_VARIABLE _line OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "POCL_STEAL_SOURCES names '${_source}', which is "
      "not a PoCL tree this project builds (see above).")
  endif()
  string(REPLACE " " ";" _line "${_line}")
  list(GET _line 0 _v)
  list(GET _line 1 _min)
  list(GET _line 2 _max)
  if(_v STREQUAL POCL_VERSION OR _v IN_LIST POCL_STEAL_VERSIONS)
    message(STATUS "pocl-steal: PoCL ${_v} from ${_source} is built "
                   "already; not building it again")
    continue()
  endif()
  pocl_steal_find_llvm(_llvm ${_min} ${_max})
  if(NOT _llvm)
    list(APPEND POCL_STEAL_VERSIONS_MISSING
         "${_v}|no llvm-config of LLVM ${_min}..${_max} for PoCL ${_v}")
    message(WARNING "PoCL ${_v} from ${_source} is not built: no "
                    "llvm-config of LLVM ${_min}..${_max}. Its tests are skipped.")
    continue()
  endif()
  set(_dir "${CMAKE_BINARY_DIR}/pocl-${_v}")
  pocl_steal_pocl_source(_line "${_source}" "${_dir}/pocl-src")
  list(GET _line 3 _upstream)
  message(STATUS "pocl-steal: also PoCL ${_v} (${_upstream}) with LLVM "
                 "${_llvm} into ${_dir}/prefix")
  pocl_steal_suite_args(POCL_HAS_SUITE_${_v} _suite_args ${_v})
  pocl_steal_kernellib_args(_kernellib_args ${_v})
  pocl_steal_remote_args(_remote_args ${_v})
  pocl_steal_add_pocl(pocl-${_v} "${_dir}/pocl-src" "${_dir}/pocl-build"
                      "${_dir}/prefix" "${_llvm}" ${_suite_args}
                      ${_kernellib_args} ${_remote_args})
  # One PoCL build at a time: two would compete for the cores.
  add_dependencies(pocl-${_v} ${_previous})
  set(_previous pocl-${_v})
  pocl_steal_add_tbb_peer(POCL_HAS_TBB_${_v} pocl-${_v}-tbb ${_v}
    "${_dir}/pocl-src" "${_dir}/pocl-build-tbb" "${_dir}/prefix"
    "pocl-${_v};pocl-${_v}-prefixes")
  if(POCL_HAS_TBB_${_v})
    set(_previous pocl-${_v}-tbb)
  endif()
  list(APPEND POCL_STEAL_VERSIONS ${_v})
  pocl_steal_has_failed_dependency(POCL_HAS_FAILED_DEPENDENCY_${_v}
                                   "${_dir}/pocl-src")
  set(POCL_BUILD_DIR_${_v} "${_dir}/pocl-build")
  set(POCL_SOURCE_${_v} "${_source}")
  set(POCL_UPSTREAM_${_v} "${_upstream}")
  foreach(p OURS STOCK TSAN ASAN TBB OURS_TBB)
    string(TOLOWER ${p} _p)
    string(REPLACE "_" "-" _p "${_p}")
    set(POCL_PREFIX_${p}_${_v} "${_dir}/prefix/${_p}")
  endforeach()
endforeach()
unset(ENV{POCL_SOURCE_SETTING})
foreach(_v 7.1 7.2 main)
  if(NOT _v STREQUAL POCL_VERSION AND NOT _v IN_LIST POCL_STEAL_VERSIONS
     AND NOT "${POCL_STEAL_VERSIONS_MISSING}" MATCHES "(^|;)${_v}[|]")
    list(APPEND POCL_STEAL_VERSIONS_MISSING
         "${_v}|no PoCL ${_v} tree in POCL_STEAL_SOURCES ('${POCL_STEAL_SOURCES}')")
  endif()
endforeach()

# What was built and what not, for `make` to end with and `make check`'s
# summary (ci/build.sh, ci/check.sh): one line per version, "VERSION
# built UPSTREAM PREFIX_DIR" or "VERSION missing WHY".
set(_lines "${POCL_VERSION} built ${POCL_UPSTREAM} ${CMAKE_BINARY_DIR}/prefix\n")
foreach(_v ${POCL_STEAL_VERSIONS})
  string(APPEND _lines
         "${_v} built ${POCL_UPSTREAM_${_v}} ${CMAKE_BINARY_DIR}/pocl-${_v}/prefix\n")
endforeach()
foreach(_m ${POCL_STEAL_VERSIONS_MISSING})
  string(REPLACE "|" ";" _m "${_m}")
  list(GET _m 0 _v)
  list(GET _m 1 _why)
  string(APPEND _lines "${_v} missing ${_why}\n")
endforeach()
file(WRITE "${CMAKE_BINARY_DIR}/pocl-versions.txt" "${_lines}")
