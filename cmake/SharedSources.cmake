# The default of POCL_STEAL_SOURCES: the pristine upstream tarballs in the
# project's shared source folder, ../shared/pocl-src beside the checkout,
# by its real path, so that a symbolic link ../shared is followed the same
# way everywhere.  In the Debian 13 build root only the real path is
# mounted, and ci/enter.sh passes it as POCL_STEAL_SHARED_SOURCES; a glob of
# the unresolved path there found nothing, and 7.2 and main were quietly
# not built.
#
# Included by cmake/PoclVersions.cmake with TOP the checkout, it sets
# POCL_STEAL_SHARED_SOURCE_LIST.  Run as a script
# (cmake -DTOP=... -P cmake/SharedSources.cmake), it prints that list, one
# item a line (tests/patches/check_shared_link.sh).
if(NOT TOP)
  message(FATAL_ERROR "SharedSources.cmake: TOP (the checkout) is not set")
endif()
if(POLICY CMP0152)
  cmake_policy(SET CMP0152 NEW) # links resolved before ".." is collapsed
endif()
set(_shared_dir "")
if(DEFINED ENV{POCL_STEAL_SHARED_SOURCES})
  set(_shared_dir "$ENV{POCL_STEAL_SHARED_SOURCES}")
elseif(EXISTS "${TOP}/../shared/pocl-src")
  file(REAL_PATH "${TOP}/../shared/pocl-src" _shared_dir)
endif()
set(POCL_STEAL_SHARED_SOURCE_LIST "")
if(_shared_dir)
  file(GLOB POCL_STEAL_SHARED_SOURCE_LIST "${_shared_dir}/pocl-*.tar.xz")
endif()
list(SORT POCL_STEAL_SHARED_SOURCE_LIST)
if(CMAKE_SCRIPT_MODE_FILE)
  foreach(_s ${POCL_STEAL_SHARED_SOURCE_LIST})
    message("${_s}")
  endforeach()
endif()
