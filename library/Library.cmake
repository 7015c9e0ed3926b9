# Symm's device library (docs/Library.md): .mlir functions that kernels
# declare and call by name, linked into each gpu.module by symm-link-library.
# Hand-written files are copied as they are; the templates are instantiated
# here: signal.mlir.in once, collectives.mlir.in once per element type. The
# result is share/symm/library in the build tree, where the tools in bin/
# and the libraries in lib/ find it, and in the install prefix.
# Included from the top-level CMakeLists.txt before the runtime, whose
# collective kernels call the library.

set(_lib_src ${CMAKE_CURRENT_LIST_DIR})
set(SYMM_LIBRARY_DIR ${CMAKE_BINARY_DIR}/share/symm/library)
file(MAKE_DIRECTORY ${SYMM_LIBRARY_DIR})

# Facts the library shares with the C side, read from the headers that define
# them.
set(_headers ${CMAKE_SOURCE_DIR}/runtime/include/symm)
file(STRINGS ${_headers}/kernel_context.h _line
     REGEX "#define SYMM_MAX_RANKS ")
string(REGEX REPLACE ".*SYMM_MAX_RANKS ([0-9]+).*" "\\1" MAX_RANKS "${_line}")
file(STRINGS ${_headers}/collectives.h _line
     REGEX "#define SYMM_COLL_FLAG_KINDS ")
string(REGEX REPLACE ".*SYMM_COLL_FLAG_KINDS ([0-9]+).*" "\\1" KINDS "${_line}")
file(STRINGS ${_headers}/collectives.h _line
     REGEX "#define SYMM_COLL_VECTOR_BYTES ")
string(REGEX REPLACE ".*SYMM_COLL_VECTOR_BYTES ([0-9]+).*" "\\1"
       SYMM_COLL_VECTOR_BYTES "${_line}")

# Element types: name (symm_dtype order), bytes, accumulator type, from the
# one list of them (symm/dtypes.def).
set(SYMM_COLL_DTYPES)
file(STRINGS ${_headers}/dtypes.def _lines REGEX "^SYMM_DTYPE\\(")
foreach(_line ${_lines})
  string(REGEX MATCH "^SYMM_DTYPE\\(([A-Z0-9_]+), ([a-z0-9]+), ([0-9]+), ([a-z0-9]+)\\)$"
         _ok "${_line}")
  if(NOT _ok)
    message(FATAL_ERROR "symm/dtypes.def: cannot read '${_line}'; each line is "
                        "SYMM_DTYPE(ENUMERATOR, NAME, BYTES, ACCUMULATOR)")
  endif()
  list(APPEND SYMM_COLL_DTYPES ${CMAKE_MATCH_2})
  set(_bytes_${CMAKE_MATCH_2} ${CMAKE_MATCH_3})
  set(_acc_${CMAKE_MATCH_2} ${CMAKE_MATCH_4})
endforeach()

# Sets, for element type S, the names the templates use: T (the type), A
# (its accumulator), BYTES, W (elements per vector), the arithmetic (ADD, MUL,
# MIN, MAX) and the conversions between T and A (EXT, TRUNC).
macro(symm_dtype_names S)
  set(T ${S})
  set(A ${_acc_${S}})
  set(BYTES ${_bytes_${S}})
  math(EXPR W "${SYMM_COLL_VECTOR_BYTES} / ${BYTES}")
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
endmacro()
set(SYMM_TEMPLATE_NAMES S T A W BYTES EXT TRUNC ADD MUL MIN MAX KINDS MAX_RANKS)

# Replaces each @NAME@ of `text` by ${NAME} and writes it to `out`, touching
# the file only when it changes (not configure_file: MLIR symbols such as
# @f_@S@ would look like CMake variables to it).
function(symm_instantiate text names out)
  foreach(name ${names})
    string(REPLACE "@${name}@" "${${name}}" text "${text}")
  endforeach()
  file(WRITE ${out}.tmp "${text}")
  configure_file(${out}.tmp ${out} COPYONLY)
  file(REMOVE ${out}.tmp)
endfunction()

set(SYMM_LIBRARY_FILES)
file(GLOB _lib_plain RELATIVE ${_lib_src} ${_lib_src}/*.mlir)
foreach(f ${_lib_plain})
  configure_file(${_lib_src}/${f} ${SYMM_LIBRARY_DIR}/${f} COPYONLY)
  list(APPEND SYMM_LIBRARY_FILES ${SYMM_LIBRARY_DIR}/${f})
endforeach()
file(READ ${_lib_src}/signal.mlir.in _template)
symm_instantiate("${_template}" "KINDS;MAX_RANKS" ${SYMM_LIBRARY_DIR}/signal.mlir)
list(APPEND SYMM_LIBRARY_FILES ${SYMM_LIBRARY_DIR}/signal.mlir)
file(READ ${_lib_src}/collectives.mlir.in _template)
foreach(S ${SYMM_COLL_DTYPES})
  symm_dtype_names(${S})
  symm_instantiate("${_template}" "${SYMM_TEMPLATE_NAMES}"
                   ${SYMM_LIBRARY_DIR}/collectives-${S}.mlir)
  list(APPEND SYMM_LIBRARY_FILES ${SYMM_LIBRARY_DIR}/collectives-${S}.mlir)
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_lib_src}/signal.mlir.in ${_lib_src}/collectives.mlir.in
  ${_headers}/kernel_context.h ${_headers}/collectives.h
  ${_headers}/dtypes.def)
foreach(f ${_lib_plain})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_lib_src}/${f})
endforeach()
install(FILES ${SYMM_LIBRARY_FILES} DESTINATION share/symm/library)
