# Helpers for Symm's libraries. Every library links the shared libMLIR.so (the
# `MLIR` target) so that tools and embedders see one copy of MLIR, and is
# exported in SymmTargets for find_package(Symm).

function(add_symm_library name)
  add_mlir_library(${name} DISABLE_INSTALL EXCLUDE_FROM_LIBMLIR ${ARGN})
  target_link_libraries(${name} PUBLIC MLIR)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_include_directories(${name} SYSTEM PUBLIC ${MLIR_INCLUDE_DIRS})
  set_property(GLOBAL APPEND PROPERTY SYMM_EXPORTS ${name})
  install(TARGETS ${name} EXPORT SymmTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib RUNTIME DESTINATION bin)
endfunction()
