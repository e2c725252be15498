# check_includes.cmake: every `#include "…"` of common/, tools/ and the six hooks runs down the
# layers, never up or sideways: a file includes its own folder's files and those of the folders its
# row below names. Run as a test: cmake -DSOURCE_DIR=<repo> -P check_includes.cmake; it prints each
# wrong-way include (file, line, what it includes) and fails when there is one.
#
# The order, written once (a folder: the folders it may include besides its own). CMake's links
# (common/*/CMakeLists.txt, tools/CMakeLists.txt, each hook's LIBS) follow the same rows.
cmake_minimum_required(VERSION 3.25)

set(allowed_text "")
set(allowed_os text)
set(allowed_fast text os)
set(allowed_io text os fast)
set(allowed_shell text os fast io)
set(allowed_transcript text os fast io)
set(allowed_hook text os fast io)
set(allowed_tools text os fast io shell transcript hook)
# A hook's rules include common's lower folders and the one library it reads with; its main.cpp
# alone also includes the hook driver and the tools. No hook includes another hook.
set(allowed_kill-guard text os fast io shell)
set(allowed_shell-guard text os fast io shell)
set(allowed_plan-gate text os fast io transcript)
set(allowed_plan-hints text os fast io transcript)
set(allowed_verdict-nudge text os fast io)
set(allowed_session-start text os fast io)
set(main_also hook tools)

set(hooks kill-guard shell-guard plan-gate plan-hints verdict-nudge session-start)
set(folders text os fast io shell transcript hook)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repository> -P check_includes.cmake")
endif()

# The layer a project path belongs to ("common/shell/x.hpp" -> shell, "tools/…" -> tools,
# "kill-guard/…" -> kill-guard); "" for none.
function(layer_of path out)
  set(layer "")
  if(path MATCHES "^common/([^/]+)/")
    set(folder ${CMAKE_MATCH_1})
    if(folder IN_LIST folders)
      set(layer ${folder})
    endif()
  elseif(path MATCHES "^tools/")
    set(layer tools)
  elseif(path MATCHES "^([^/]+)/")
    set(folder ${CMAKE_MATCH_1})
    if(folder IN_LIST hooks)
      set(layer ${folder})
    endif()
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

set(globs "")
foreach(dir common tools ${hooks})
  list(APPEND globs ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp)
endforeach()
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${globs})
list(SORT sources)

set(wrong 0)
set(checked 0)
foreach(source IN LISTS sources)
  layer_of("${source}" layer)
  if(layer STREQUAL "")
    message("${source}: in no layer (common/<folder>/, tools/ or a hook's folder)")
    math(EXPR wrong "${wrong} + 1")
    continue()
  endif()
  set(allowed ${layer} ${allowed_${layer}})
  get_filename_component(name "${source}" NAME)
  if(layer IN_LIST hooks AND name STREQUAL "main.cpp")
    list(APPEND allowed ${main_also})
  endif()
  file(STRINGS ${SOURCE_DIR}/${source} lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(target "${CMAKE_MATCH_1}")
    math(EXPR checked "${checked} + 1")
    layer_of("${target}" to)
    if(to STREQUAL "")
      message("${source}:${number}: includes \"${target}\": name it from the project root "
              "(common/<folder>/…, tools/…, <hook>/…)")
      math(EXPR wrong "${wrong} + 1")
    elseif(NOT to IN_LIST allowed)
      list(JOIN allowed ", " may)
      message("${source}:${number}: includes \"${target}\": ${layer} may include ${may}, "
              "not ${to}")
      math(EXPR wrong "${wrong} + 1")
    endif()
  endforeach()
endforeach()

list(LENGTH sources files)
if(wrong GREATER 0)
  message(FATAL_ERROR "check_includes: ${wrong} wrong-way include(s) in ${files} files")
endif()
message("check_includes: ${checked} includes in ${files} files, each down the layers")
