# The collectives (symm/collectives.h) are part of libsymm_runtime. Their
# kernels are written in the symm dialect (Kernels.mlir.in, calling the tile
# blocks of the device library, library/collectives.mlir.in),
# instantiated here once per element type, compiled by symm-compile for every
# target at build time and embedded in the library, so programs need no
# compiler at run time. Without the compiler (SYMM_BUILD_COMPILER=OFF) the
# runtime still builds and the collectives report that they are unavailable.
# Included from runtime/CMakeLists.txt, so every rule lives in the directory of
# the target that consumes it.

set(_coll_dir ${CMAKE_CURRENT_SOURCE_DIR}/lib/collectives)
target_sources(symm_runtime PRIVATE ${_coll_dir}/Algorithms.cpp
  ${_coll_dir}/Channels.cpp ${_coll_dir}/Checks.cpp ${_coll_dir}/Collectives.cpp
  ${_coll_dir}/CopyEngine.cpp)
# The most threads per workgroup SYMM_COLLECTIVES_THREADS allows, and the
# bound the kernels are compiled for.
set(MAX_THREADS 1024)
set_property(SOURCE ${_coll_dir}/Channels.cpp APPEND PROPERTY
  COMPILE_DEFINITIONS SYMM_COLL_MAX_THREADS=${MAX_THREADS})
target_include_directories(symm_runtime PRIVATE ${_coll_dir})

if(NOT SYMM_BUILD_COMPILER)
  target_sources(symm_runtime PRIVATE ${_coll_dir}/NoKernels.cpp)
  return()
endif()

# backend:target:object[:remote[:flag]] for every runtime backend: the host
# shared object, PTX for sm_90 (the driver finishes it, so no ptxas is needed
# here) and HSACO for gfx942; the host object with race checks, which the
# host backend runs with SYMM_HOST_CHECK_RACES=1; and each compiled with
# --trace, which a backend runs when SYMM_TRACE asks for a trace. The runtime
# picks the module by its backend's name (and "-races" or "-trace").
set(SYMM_COLL_TARGETS host:host:so cuda:sm_90:ptx hip:gfx942:hsaco
    host-races:host:so:direct:--check-races
    host-trace:host:so:direct:--trace cuda-trace:sm_90:ptx:direct:--trace
    hip-trace:gfx942:hsaco:direct:--trace)
# The nvshmem backend's, reaching peers as symm-compile --remote says:
# through NVSHMEM where a peer is not mapped, or always
# (SYMM_COLLECTIVES_REMOTE=nvshmem).
if(nvshmem IN_LIST SYMM_RUNTIME_BACKENDS)
  list(APPEND SYMM_COLL_TARGETS nvshmem:sm_90:ptx:auto
       nvshmem-forced:sm_90:ptx:nvshmem)
endif()

set(_out ${CMAKE_BINARY_DIR}/share/symm/collectives)
file(MAKE_DIRECTORY ${_out})
file(READ ${_coll_dir}/Kernels.mlir.in _kernels_template)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_coll_dir}/Kernels.mlir.in)
set(_blobs)
foreach(S ${SYMM_COLL_DTYPES})
  # The kernels declare the library functions they call (library/).
  symm_dtype_names(${S})
  symm_instantiate("${_kernels_template}" "${SYMM_TEMPLATE_NAMES};MAX_THREADS"
                   ${_out}/kernels-${S}.mlir)
  foreach(target_emit ${SYMM_COLL_TARGETS})
    string(REPLACE ":" ";" _te ${target_emit})
    list(GET _te 0 _backend)
    list(GET _te 1 _target)
    list(GET _te 2 _emit)
    set(_remote direct)
    set(_flags)
    set(_blob ${_out}/kernels-${S}.${_target}.${_emit})
    list(LENGTH _te _fields)
    if(_fields GREATER 4)
      list(GET _te 4 _flags)
      set(_blob ${_out}/kernels-${S}.${_backend}.${_emit})
    elseif(_fields GREATER 3)
      list(GET _te 3 _remote)
      set(_blob ${_out}/kernels-${S}.${_target}-${_remote}.${_emit})
    endif()
    # symm-compile writes the kernels' manifest beside the module.
    add_custom_command(OUTPUT ${_blob} ${_blob}.json
      COMMAND symm-compile --target=${_target} --emit=${_emit}
              --remote=${_remote} ${_flags}
              ${_out}/kernels-${S}.mlir -o ${_blob}
      DEPENDS symm-compile ${_out}/kernels-${S}.mlir ${SYMM_LIBRARY_FILES}
      COMMENT "Compiling the ${S} collectives for ${_target}"
      VERBATIM)
    list(APPEND _blobs "${_backend}|${S}|${BYTES}|${_blob}")
  endforeach()
endforeach()

# The embedding source names each blob with .incbin and carries its hash, so
# a compiler cache never serves an object embedding an older blob.
set(_embed_cpp ${CMAKE_CURRENT_BINARY_DIR}/EmbeddedCollectives.cpp)
set(_blob_files)
foreach(b ${_blobs})
  string(REPLACE "|" ";" _parts "${b}")
  list(GET _parts 3 _f)
  list(APPEND _blob_files ${_f} ${_f}.json)
endforeach()
string(REPLACE ";" "," _blob_arg "${_blobs}")
add_custom_command(OUTPUT ${_embed_cpp}
  COMMAND ${CMAKE_COMMAND} -DBLOBS=${_blob_arg} -DOUTPUT=${_embed_cpp}
          -P ${_coll_dir}/Embed.cmake
  DEPENDS ${_blob_files} ${_coll_dir}/Embed.cmake
  COMMENT "Embedding the collective kernels"
  VERBATIM)
target_sources(symm_runtime PRIVATE ${_embed_cpp})
