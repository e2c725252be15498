# Release archives: `cpack --config build/<preset>/CPackConfig.cmake -B build/packages` (what
# .ci/run's archives stage runs) packs the installed plugin tree (docs/contract.md, "Install
# layout", with scripts/install.sh, LICENSE and the archive's README.md) into viber-hooks-<version>-<os>-<arch>.tar.gz (a .zip for Windows), whose one
# top directory is the plugin root.
if(APPLE)
  set(viber_os macos)
elseif(WIN32)
  set(viber_os windows)
else()
  string(TOLOWER "${CMAKE_SYSTEM_NAME}" viber_os)
endif()

# One name per architecture whatever the toolchain calls it (AMD64, amd64, aarch64, ARM64, ...);
# a single-architecture macOS build is named by CMAKE_OSX_ARCHITECTURES.
set(viber_arch "${CMAKE_SYSTEM_PROCESSOR}")
list(LENGTH CMAKE_OSX_ARCHITECTURES viber_osx_arch_count)
if(APPLE AND viber_osx_arch_count EQUAL 1)
  set(viber_arch "${CMAKE_OSX_ARCHITECTURES}")
endif()
string(TOLOWER "${viber_arch}" viber_arch)
if(viber_arch MATCHES "^(x86_64|amd64|x64)$")
  set(viber_arch x86_64)
elseif(viber_arch MATCHES "^(aarch64|arm64)$")
  set(viber_arch arm64)
endif()

set(VIBER_PACKAGE_NAME "viber-hooks-${PROJECT_VERSION}-${viber_os}-${viber_arch}")
set(CPACK_PACKAGE_NAME viber-hooks)
set(CPACK_PACKAGE_VENDOR viber)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Claude Code hook binaries for the viber plugin")
set(CPACK_PACKAGE_FILE_NAME "${VIBER_PACKAGE_NAME}")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/package")
if(WIN32)
  set(CPACK_GENERATOR ZIP)
else()
  set(CPACK_GENERATOR TGZ)
endif()
# One top directory, named like the archive: unpacked, it is the plugin root.
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
# Symbols are for debugging a build tree, not for the hooks users run.
set(CPACK_STRIP_FILES ON)
# Only the plugin tree: install rules of other projects (none today) never reach the archive.
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};ALL;/")
include(CPack)
