# belay_embed(OUT FILES): generate a C file holding each FILE as a NUL-terminated byte
# array, with a lookup table `embedded_files[]` keyed by "dir/name" (e.g. "themes/dark.theme").
function(belay_embed out files)
  string(REPLACE ";" "|" packed "${files}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${CMAKE_SOURCE_DIR} -DFILES=${packed}
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_gen.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/embed_gen.cmake
    COMMENT "Embedding data files"
    VERBATIM)
endfunction()
