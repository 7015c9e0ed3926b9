# The collectives (symm/collectives.h) are part of libsymm_runtime. Their
# kernels are written in the symm dialect (Blocks.mlir.in, Kernels.mlir.in),
# instantiated here once per element type, compiled by symm-compile for every
# target at build time and embedded in the library, so programs need no
# compiler at run time. Without the compiler (SYMM_BUILD_COMPILER=OFF) the
# runtime still builds and the collectives report that they are unavailable.
# Included from runtime/CMakeLists.txt, so every rule lives in the directory of
# the target that consumes it.

set(_coll_dir ${CMAKE_CURRENT_SOURCE_DIR}/lib/collectives)
target_sources(symm_runtime PRIVATE ${_coll_dir}/Collectives.cpp)
# The most threads per workgroup SYMM_COLLECTIVES_THREADS allows, and the
# bound the kernels are compiled for.
set(MAX_THREADS 1024)
set_property(SOURCE ${_coll_dir}/Collectives.cpp APPEND PROPERTY
  COMPILE_DEFINITIONS SYMM_COLL_MAX_THREADS=${MAX_THREADS})
target_include_directories(symm_runtime PRIVATE ${_coll_dir})

if(NOT SYMM_BUILD_COMPILER)
  target_sources(symm_runtime PRIVATE ${_coll_dir}/NoKernels.cpp)
  return()
endif()

# Facts the kernels share with the C side, read from the headers that define
# them.
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/include/symm/kernel_context.h _line
     REGEX "#define SYMM_MAX_RANKS ")
string(REGEX REPLACE ".*SYMM_MAX_RANKS ([0-9]+).*" "\\1" MAX_RANKS "${_line}")
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/include/symm/collectives.h _line
     REGEX "#define SYMM_COLL_FLAG_KINDS ")
string(REGEX REPLACE ".*SYMM_COLL_FLAG_KINDS ([0-9]+).*" "\\1" KINDS "${_line}")
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/include/symm/collectives.h _line
     REGEX "#define SYMM_COLL_VECTOR_BYTES ")
string(REGEX REPLACE ".*SYMM_COLL_VECTOR_BYTES ([0-9]+).*" "\\1" _vector
       "${_line}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_coll_dir}/Blocks.mlir.in ${_coll_dir}/Kernels.mlir.in
  ${CMAKE_CURRENT_SOURCE_DIR}/include/symm/kernel_context.h
  ${CMAKE_CURRENT_SOURCE_DIR}/include/symm/collectives.h)

# Element type: name (symm_dtype order), MLIR type, accumulator type.
set(SYMM_COLL_DTYPES i8 i32 i64 f16 bf16 f32 f64)
set(_bytes_i8 1)
set(_bytes_i32 4)
set(_bytes_i64 8)
set(_bytes_f16 2)
set(_bytes_bf16 2)
set(_bytes_f32 4)
set(_bytes_f64 8)
set(_acc_i8 i8)
set(_acc_i32 i32)
set(_acc_i64 i64)
set(_acc_f16 f32)
set(_acc_bf16 f32)
set(_acc_f32 f32)
set(_acc_f64 f64)
# backend:target:object for every runtime backend: the host shared object,
# PTX for sm_90 (the driver finishes it, so no ptxas is needed here) and HSACO
# for gfx942. The runtime picks the module by its backend's name.
set(SYMM_COLL_TARGETS host:host:so cuda:sm_90:ptx hip:gfx942:hsaco)

set(_out ${CMAKE_BINARY_DIR}/share/symm/collectives)
file(MAKE_DIRECTORY ${_out})
file(READ ${_coll_dir}/Blocks.mlir.in _blocks_template)
file(READ ${_coll_dir}/Kernels.mlir.in _kernels_template)
# Replaces each @NAME@ of the list by ${NAME} (not configure_file: MLIR
# symbols such as @f_@S@ would look like CMake variables to it).
function(symm_instantiate text names out)
  foreach(name ${names})
    string(REPLACE "@${name}@" "${${name}}" text "${text}")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
set(_names S T A W BYTES EXT TRUNC ADD MUL MIN MAX KINDS MAX_RANKS MAX_THREADS)
set(_blobs)
foreach(S ${SYMM_COLL_DTYPES})
  set(T ${S})
  set(A ${_acc_${S}})
  set(BYTES ${_bytes_${S}})
  math(EXPR W "${_vector} / ${BYTES}")
  if(S MATCHES "^i")
    set(ADD arith.addi)
    set(MUL arith.muli)
    set(MIN arith.minsi)
    set(MAX arith.maxsi)
  else()
    set(ADD arith.addf)
    set(MUL arith.mulf)
    set(MIN arith.minnumf)
    set(MAX arith.maxnumf)
  endif()
  if(A STREQUAL T)
    set(EXT arith.bitcast)
    set(TRUNC arith.bitcast)
  else()
    set(EXT arith.extf)
    set(TRUNC arith.truncf)
  endif()
  # The blocks alone, for users' gpu.modules, and the kernels module.
  symm_instantiate("${_blocks_template}" "${_names}" BLOCKS)
  symm_instantiate("${_kernels_template}" "BLOCKS;${_names}" _kernels)
  # Written through a copy that only touches the file when it changes.
  foreach(_kind blocks kernels)
    set(_text "${BLOCKS}")
    if(_kind STREQUAL kernels)
      set(_text "${_kernels}")
    endif()
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${_kind}-${S}.mlir.tmp "${_text}")
    configure_file(${CMAKE_CURRENT_BINARY_DIR}/${_kind}-${S}.mlir.tmp
                   ${_out}/${_kind}-${S}.mlir COPYONLY)
  endforeach()
  foreach(target_emit ${SYMM_COLL_TARGETS})
    string(REPLACE ":" ";" _te ${target_emit})
    list(GET _te 0 _backend)
    list(GET _te 1 _target)
    list(GET _te 2 _emit)
    set(_blob ${_out}/kernels-${S}.${_target}.${_emit})
    add_custom_command(OUTPUT ${_blob}
      COMMAND symm-compile --target=${_target} --emit=${_emit}
              ${_out}/kernels-${S}.mlir -o ${_blob}
      DEPENDS symm-compile ${_out}/kernels-${S}.mlir
      COMMENT "Compiling the ${S} collectives for ${_target}"
      VERBATIM)
    list(APPEND _blobs "${_backend}|${S}|${BYTES}|${_blob}")
  endforeach()
endforeach()
install(DIRECTORY ${_out}/ DESTINATION share/symm/collectives
        FILES_MATCHING PATTERN "blocks-*.mlir")

# The embedding source names each blob with .incbin and carries its hash, so
# a compiler cache never serves an object embedding an older blob.
set(_embed_cpp ${CMAKE_CURRENT_BINARY_DIR}/EmbeddedCollectives.cpp)
set(_blob_files)
foreach(b ${_blobs})
  string(REPLACE "|" ";" _parts "${b}")
  list(GET _parts 3 _f)
  list(APPEND _blob_files ${_f})
endforeach()
string(REPLACE ";" "," _blob_arg "${_blobs}")
add_custom_command(OUTPUT ${_embed_cpp}
  COMMAND ${CMAKE_COMMAND} -DBLOBS=${_blob_arg} -DOUTPUT=${_embed_cpp}
          -P ${_coll_dir}/Embed.cmake
  DEPENDS ${_blob_files} ${_coll_dir}/Embed.cmake
  COMMENT "Embedding the collective kernels"
  VERBATIM)
target_sources(symm_runtime PRIVATE ${_embed_cpp})
