# windows-x64.cmake: cross-compiles for Windows x86-64 with mingw-w64 (g++-mingw-w64-x86-64) against
# Boost built from Debian's boost1.81 source package (scripts/build-boost-mingw.sh), and runs what it
# builds (tests, and through them the hooks) under wine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)

set(VIBER_TRIPLET x86_64-w64-mingw32)
# The -posix variant: the win32-thread one has no std::thread, which the stdin reader and the
# tests use.
set(CMAKE_C_COMPILER ${VIBER_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${VIBER_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${VIBER_TRIPLET}-windres)

# Boost's prefix from scripts/build-boost-mingw.sh (its cache directory can be moved with
# VIBER_BOOST_MINGW_CACHE, as in the script).
if(DEFINED ENV{VIBER_BOOST_MINGW_CACHE})
  set(VIBER_BOOST_MINGW_PREFIX "$ENV{VIBER_BOOST_MINGW_CACHE}/prefix")
else()
  set(VIBER_BOOST_MINGW_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../build/boost-mingw/prefix")
endif()
get_filename_component(VIBER_BOOST_MINGW_PREFIX "${VIBER_BOOST_MINGW_PREFIX}" ABSOLUTE)
set(CMAKE_FIND_ROOT_PATH /usr/${VIBER_TRIPLET} ${VIBER_BOOST_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(Boost_USE_STATIC_RUNTIME ON)

# Every executable carries its runtime (libstdc++, libgcc, winpthread): wine and a user's machine
# need no mingw DLLs beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

