# viber_link_static(<target>): with VIBER_STATIC, links an executable as statically as its platform
# allows (start-up is most of a hook's cost) and drops the sections nothing uses.
# - Linux, and Windows with mingw-w64: fully static (-static): no loader, no shared libraries.
# - macOS: libSystem is always dynamic and there is no static libc; Apple clang's libc++ ships with
#   the system, so only GCC's own runtime (libstdc++, libgcc) is linked in, when GCC builds it.
# - Elsewhere (the BSDs): GCC's runtime linked in, the system's libc left dynamic.
#
# On Linux, with VIBER_LINK_ORDER and ld.lld found, the functions a hook runs on its usual paths
# (cmake/link-order/<hook>.txt, written by scripts/link-order.sh) are placed first, together: a
# call then maps a few dozen pages of code instead of a hundred spread over the binary. Without
# ld.lld (or where the compiler cannot use it: the arm64 cross build), or for a target with no
# list, the link is the same, unordered.
option(VIBER_LINK_ORDER "Link the hooks' usual functions together (Linux, with ld.lld)" ON)
set(VIBER_LINK_ORDER_DIR "${CMAKE_CURRENT_LIST_DIR}/link-order")
set(VIBER_LINK_ORDERED OFF)
if(VIBER_STATIC AND VIBER_LINK_ORDER AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" VIBER_HAVE_LLD)
  if(VIBER_HAVE_LLD)
    set(VIBER_LINK_ORDERED ON)
  else()
    message(STATUS
      "viber-hooks: ${CMAKE_CXX_COMPILER_ID} cannot link with ld.lld here; hooks linked unordered")
  endif()
endif()

# viber_link_static(<target> [ORDERED_AS <hook>]): ORDERED_AS takes another hook's list (the
# benchmark floor is laid out as a hook, so a ratio compares the work after the same start-up).
function(viber_link_static target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ORDERED_AS" "")
  if(NOT VIBER_STATIC)
    return()
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" OR MINGW)
    target_link_options(${target} PRIVATE -static -Wl,--gc-sections)
    set(order "${VIBER_LINK_ORDER_DIR}/${target}.txt")
    if(arg_ORDERED_AS)
      set(order "${VIBER_LINK_ORDER_DIR}/${arg_ORDERED_AS}.txt")
    endif()
    if(VIBER_LINK_ORDERED AND EXISTS "${order}")
      target_link_options(${target} PRIVATE -fuse-ld=lld
        "-Wl,--symbol-ordering-file=${order}" -Wl,--no-warn-symbol-ordering)
      set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${order}")
    endif()
  elseif(APPLE)
    target_link_options(${target} PRIVATE -Wl,-dead_strip)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    endif()
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc -Wl,--gc-sections)
  endif()
endfunction()
