# check_archive.cmake: packs a build's release archive with cpack into a scratch directory and
# checks it holds exactly the plugin tree (docs/contract.md, "Install layout") under one top
# directory named like the archive, viber-hooks-<version>-<os>-<arch>, hooks executable.
# Run by ctest: cmake -DCPACK_CONFIG=<build>/CPackConfig.cmake -DSCRATCH=<dir> -DPACKAGE_NAME=<name>
#   -DEXPECTED=<file;file...> -DEXECUTABLES=<file;...> -P check_archive.cmake
foreach(var CPACK_CONFIG SCRATCH PACKAGE_NAME EXPECTED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_archive: ${var} not given")
  endif()
endforeach()

if(NOT PACKAGE_NAME MATCHES "^viber-hooks-[0-9]+\\.[0-9]+\\.[0-9]+-(linux|macos|windows)-(x86_64|arm64)$")
  message(FATAL_ERROR "archive name ${PACKAGE_NAME} is not viber-hooks-<version>-<os>-<arch>")
endif()

file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
get_filename_component(cmake_bin_dir "${CMAKE_COMMAND}" DIRECTORY)
find_program(CPACK_PROGRAM cpack HINTS "${cmake_bin_dir}" REQUIRED)
execute_process(COMMAND "${CPACK_PROGRAM}" --config "${CPACK_CONFIG}" -B "${SCRATCH}"
                RESULT_VARIABLE packed OUTPUT_VARIABLE pack_log ERROR_VARIABLE pack_log)
if(NOT packed EQUAL 0)
  message(FATAL_ERROR "cpack failed (${packed}):\n${pack_log}")
endif()

file(GLOB archives "${SCRATCH}/*.tar.gz" "${SCRATCH}/*.zip")
list(LENGTH archives count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "cpack made ${count} archives, not one: ${archives}")
endif()
get_filename_component(archive_name "${archives}" NAME)
if(NOT archive_name STREQUAL "${PACKAGE_NAME}.tar.gz" AND NOT archive_name STREQUAL "${PACKAGE_NAME}.zip")
  message(FATAL_ERROR "archive ${archive_name} is not named ${PACKAGE_NAME}.tar.gz or .zip")
endif()

# Unpacked, not listed: what a user gets, modes included (a listing's format differs by format).
set(unpacked "${SCRATCH}/unpacked")
file(MAKE_DIRECTORY "${unpacked}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar xf "${archives}" WORKING_DIRECTORY "${unpacked}"
                RESULT_VARIABLE unpacked_ok ERROR_VARIABLE unpack_log)
if(NOT unpacked_ok EQUAL 0)
  message(FATAL_ERROR "could not unpack ${archive_name}: ${unpack_log}")
endif()

file(GLOB top RELATIVE "${unpacked}" "${unpacked}/*")
if(NOT top STREQUAL PACKAGE_NAME)
  message(FATAL_ERROR "the archive's top level is '${top}', not the one directory ${PACKAGE_NAME}")
endif()
set(root "${unpacked}/${PACKAGE_NAME}")
file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${root}" "${root}/*")
# GLOB_RECURSE skips nothing hidden on any platform, so .claude-plugin/ is listed like the rest.
list(SORT found)
set(expected ${EXPECTED})
list(SORT expected)
if(NOT found STREQUAL expected)
  set(extra ${found})
  list(REMOVE_ITEM extra ${expected})
  set(missing ${expected})
  list(REMOVE_ITEM missing ${found})
  message(FATAL_ERROR "${archive_name} does not hold exactly the plugin tree\n"
                      "  missing: ${missing}\n  not in the layout: ${extra}")
endif()

# Modes survive a tar archive, not a zip one: Windows builds pass no EXECUTABLES.
foreach(exe IN LISTS EXECUTABLES)
  execute_process(COMMAND test -x "${root}/${exe}" RESULT_VARIABLE not_executable)
  if(NOT not_executable EQUAL 0)
    message(FATAL_ERROR "${exe} is not executable in ${archive_name}")
  endif()
endforeach()

list(LENGTH found files)
message(STATUS "${archive_name}: exactly the plugin tree (${files} files) under ${PACKAGE_NAME}/")
