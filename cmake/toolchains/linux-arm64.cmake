# linux-arm64.cmake: cross-compiles for Linux arm64 with Debian's cross toolchain
# (crossbuild-essential-arm64) against the multiarch Boost packages (libboost-*1.81-dev:arm64), and
# runs what it builds (tests, and through them the hooks) under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(VIBER_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${VIBER_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${VIBER_TRIPLET}-g++)
# Debian's multiarch layout: arm64 libraries and CMake package files live in
# /usr/lib/aarch64-linux-gnu, headers are shared in /usr/include, and the cross toolchain's own
# sysroot (libc, libstdc++) is /usr/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE ${VIBER_TRIPLET})
set(CMAKE_FIND_ROOT_PATH /usr/${VIBER_TRIPLET} /)
# Programs run on the build machine; libraries, headers and packages must be the target's (with the
# library architecture set, / finds only the aarch64-linux-gnu directories, never the host's).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest runs every test through the emulator; the tests run the hooks through it too (see
# tests/support/emulator.cpp). The dynamically linked tests find the arm64 loader, libc and
# libstdc++ where Debian's multiarch packages put them (/lib/ld-linux-aarch64.so.1,
# /usr/lib/aarch64-linux-gnu: libc6:arm64 and libstdc++6:arm64, which the arm64 Boost packages
# pull in). Not `-L /usr/aarch64-linux-gnu`: under qemu 7.2 with a prefix, a dynamically linked
# program's first pthread_create never returns.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
