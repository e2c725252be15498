# viber_add_hook(<name> SOURCES <decision sources…> [LIBS <common libraries>]): one hook = a static library holding its
# decision logic (unit-tested directly) plus a thin executable built from the directory's main.cpp.
function(viber_add_hook name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  string(REPLACE "-" "_" lib "${name}")
  add_library(${lib} STATIC ${ARG_SOURCES})
  target_link_libraries(${lib} PUBLIC viber_io ${ARG_LIBS})
  # main.cpp alone goes through the hook driver and offers the tools (--replay, --commands-json).
  add_executable(${name} main.cpp)
  target_link_libraries(${name} PRIVATE ${lib} viber_hook viber_tools)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  viber_link_static(${name})
  install(TARGETS ${name} DESTINATION hooks/bin)
  set_property(GLOBAL APPEND PROPERTY VIBER_HOOK_LIBS ${lib})
  set_property(GLOBAL APPEND PROPERTY VIBER_HOOK_BINS ${name})
endfunction()
