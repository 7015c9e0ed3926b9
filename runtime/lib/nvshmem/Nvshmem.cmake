# The nvshmem backend, built when NVSHMEM's headers (an NVSHMEM install or the
# nvidia-nvshmem wheel's folder: SYMM_NVSHMEM_HOME) and nvcc are found; CI's
# Debian has neither, and the runtime then says the backend is not built in.
# nvcc compiles Device.cu, NVSHMEM's device functions that modules are linked
# with at load, to PTX embedded in the library; libnvshmem_host.so.3 is opened
# at run time, so nothing links against NVSHMEM here. Included from
# runtime/CMakeLists.txt.

set(SYMM_NVSHMEM_HOME "$ENV{SYMM_NVSHMEM_HOME}" CACHE PATH
  "NVSHMEM for the nvshmem backend: a folder with include/nvshmem.h")
find_path(SYMM_NVSHMEM_INCLUDE_DIR nvshmem.h
  HINTS ${SYMM_NVSHMEM_HOME}/include $ENV{NVSHMEM_HOME}/include)
find_program(SYMM_NVCC nvcc HINTS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
if(NOT SYMM_NVSHMEM_INCLUDE_DIR OR NOT SYMM_NVCC)
  return()
endif()
get_filename_component(_cuda_home ${SYMM_NVCC} DIRECTORY)
get_filename_component(_cuda_home ${_cuda_home} DIRECTORY)

set(_dir ${CMAKE_CURRENT_SOURCE_DIR}/lib/nvshmem)
set(_ptx ${CMAKE_CURRENT_BINARY_DIR}/nvshmem-device.ptx)
set(_embed ${CMAKE_CURRENT_BINARY_DIR}/NvshmemDevicePtx.cpp)
# sm_90 PTX: the driver compiles it for the GPU it runs on when it links.
add_custom_command(OUTPUT ${_ptx}
  COMMAND ${SYMM_NVCC} -rdc=true -ptx -arch=sm_90 -std=c++17
          -I${CMAKE_CURRENT_SOURCE_DIR}/include -I${SYMM_NVSHMEM_INCLUDE_DIR}
          ${_dir}/Device.cu -o ${_ptx}
  DEPENDS ${_dir}/Device.cu ${CMAKE_CURRENT_SOURCE_DIR}/include/symm/nvshmem.h
  COMMENT "Compiling NVSHMEM's device functions to PTX"
  VERBATIM)
add_custom_command(OUTPUT ${_embed}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_ptx} -DOUTPUT=${_embed}
          -DSYMBOL=symm_nvshmem_device_ptx -P ${_dir}/EmbedText.cmake
  DEPENDS ${_ptx} ${_dir}/EmbedText.cmake
  COMMENT "Embedding NVSHMEM's device functions"
  VERBATIM)
target_sources(symm_runtime PRIVATE ${_dir}/NvshmemBackend.cpp ${_embed})
set_source_files_properties(${_dir}/NvshmemBackend.cpp PROPERTIES
  INCLUDE_DIRECTORIES
  "${SYMM_NVSHMEM_INCLUDE_DIR};${_cuda_home}/include;${_cuda_home}/include/cccl")
target_compile_definitions(symm_runtime PRIVATE SYMM_HAVE_NVSHMEM)
# Where the build found NVSHMEM: the library is looked for there last.
if(EXISTS ${SYMM_NVSHMEM_INCLUDE_DIR}/../lib)
  get_filename_component(_lib ${SYMM_NVSHMEM_INCLUDE_DIR}/../lib ABSOLUTE)
  set_property(SOURCE ${_dir}/NvshmemBackend.cpp APPEND PROPERTY
    COMPILE_DEFINITIONS SYMM_NVSHMEM_LIB_DIR="${_lib}")
endif()
list(APPEND SYMM_RUNTIME_BACKENDS nvshmem)
# For the tests (lit feature nvshmem-backend).
set_property(GLOBAL PROPERTY SYMM_NVSHMEM_BACKEND ON)
