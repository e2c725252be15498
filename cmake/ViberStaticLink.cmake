# viber_link_static(<target>): with VIBER_STATIC, links an executable as statically as its platform
# allows (start-up is most of a hook's cost) and drops the sections nothing uses.
# - Linux, and Windows with mingw-w64: fully static (-static): no loader, no shared libraries.
# - macOS: libSystem is always dynamic and there is no static libc; Apple clang's libc++ ships with
#   the system, so only GCC's own runtime (libstdc++, libgcc) is linked in, when GCC builds it.
# - Elsewhere (the BSDs): GCC's runtime linked in, the system's libc left dynamic.
#
# On Linux, with VIBER_LINK_ORDER and ld.lld found, the functions the hooks run on their usual
# paths (cmake/link-order.txt, written by scripts/link-order.sh) are placed first, together: a
# call then maps a few dozen pages of code instead of a hundred spread over the binary. Without
# ld.lld (or where the compiler cannot use it: the arm64 cross build) the link is the same,
# unordered.
option(VIBER_LINK_ORDER "Link the hooks' usual functions together (Linux, with ld.lld)" ON)
set(VIBER_LINK_ORDER_FILE "${CMAKE_CURRENT_LIST_DIR}/link-order.txt")
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

function(viber_link_static target)
  if(NOT VIBER_STATIC)
    return()
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" OR MINGW)
    target_link_options(${target} PRIVATE -static -Wl,--gc-sections)
    if(VIBER_LINK_ORDERED)
      target_link_options(${target} PRIVATE -fuse-ld=lld
        "-Wl,--symbol-ordering-file=${VIBER_LINK_ORDER_FILE}" -Wl,--no-warn-symbol-ordering)
      set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${VIBER_LINK_ORDER_FILE}")
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
