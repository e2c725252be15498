# viber_link_static(<target>): with VIBER_STATIC, links an executable as statically as its platform
# allows (start-up is most of a hook's cost) and drops the sections nothing uses.
# - Linux, and Windows with mingw-w64: fully static (-static): no loader, no shared libraries.
# - macOS: libSystem is always dynamic and there is no static libc; Apple clang's libc++ ships with
#   the system, so only GCC's own runtime (libstdc++, libgcc) is linked in, when GCC builds it.
# - Elsewhere (the BSDs): GCC's runtime linked in, the system's libc left dynamic.
function(viber_link_static target)
  if(NOT VIBER_STATIC)
    return()
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" OR MINGW)
    target_link_options(${target} PRIVATE -static -Wl,--gc-sections)
  elseif(APPLE)
    target_link_options(${target} PRIVATE -Wl,-dead_strip)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    endif()
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc -Wl,--gc-sections)
  endif()
endfunction()
