# Included by PoCL's own configuration (CMAKE_PROJECT_INCLUDE_BEFORE, from
# pocl_steal_add_pocl in cmake/PoclBuild.cmake).  PoCL stamps its build
# with the configure time (POCL_BUILD_TIMESTAMP) and seeds its kernel
# cache's keys with it, so every fresh configuration, as in each fresh
# clone, misses every kernel compiled before.  CMake's string(TIMESTAMP)
# takes SOURCE_DATE_EPOCH instead of the clock when it is set: a number
# derived from what the compiled kernels depend on makes the stamp, and so
# the kernel cache, the same for the same PoCL.
if(DEFINED POCL_STEAL_SOURCE_DATE_EPOCH)
  set(ENV{SOURCE_DATE_EPOCH} "${POCL_STEAL_SOURCE_DATE_EPOCH}")
endif()
