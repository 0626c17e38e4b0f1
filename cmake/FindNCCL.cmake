# Finds NCCL (nccl.h and libnccl) where the CUDA toolkit keeps it (/usr/local/cuda on the machine
# images) or where NCCL_ROOT points; defines NCCL_FOUND, NCCL_VERSION and the target NCCL::NCCL.
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${NCCL_ROOT} ENV NCCL_ROOT ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY nccl HINTS ${NCCL_ROOT} ENV NCCL_ROOT ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
             PATH_SUFFIXES lib lib64)
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*" "\\1" _major "${_nccl_version}")
  string(REGEX REPLACE ".*NCCL_MINOR ([0-9]+).*" "\\1" _minor "${_nccl_version}")
  string(REGEX REPLACE ".*NCCL_PATCH ([0-9]+).*" "\\1" _patch "${_nccl_version}")
  set(NCCL_VERSION "${_major}.${_minor}.${_patch}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
