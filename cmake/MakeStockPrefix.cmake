# cmake -DOURS=... -DSTOCK=... -DSTOCK_MODULE=... -P MakeStockPrefix.cmake
# Makes STOCK a copy of the installed prefix OURS with PoCL's own pthread
# module in place of ours, and an ICD file naming STOCK's libpocl.
foreach(v OURS STOCK STOCK_MODULE)
  if(NOT ${v})
    message(FATAL_ERROR "MakeStockPrefix.cmake: ${v} is not set")
  endif()
endforeach()
set(_icd "${OURS}/etc/OpenCL/vendors/pocl.icd")
if(NOT EXISTS "${_icd}" OR NOT EXISTS "${STOCK_MODULE}")
  message(FATAL_ERROR "MakeStockPrefix.cmake: ${_icd} or ${STOCK_MODULE} is missing; was PoCL installed?")
endif()

file(REMOVE_RECURSE "${STOCK}")
file(MAKE_DIRECTORY "${STOCK}")
file(GLOB _entries "${OURS}/*")
file(COPY ${_entries} DESTINATION "${STOCK}")
file(COPY_FILE "${STOCK_MODULE}" "${STOCK}/lib/pocl/libpocl-devices-pthread.so")

file(READ "${_icd}" _lib)
string(STRIP "${_lib}" _lib)
string(REPLACE "${OURS}/" "${STOCK}/" _stock_lib "${_lib}")
if(_stock_lib STREQUAL _lib OR NOT EXISTS "${_stock_lib}")
  message(FATAL_ERROR "MakeStockPrefix.cmake: ${_icd} names '${_lib}', not a library under ${OURS}")
endif()
file(WRITE "${STOCK}/etc/OpenCL/vendors/pocl.icd" "${_stock_lib}\n")
