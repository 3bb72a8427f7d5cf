# CPack pre-build script: stops a Debian package whose programs need shared libraries that no installed Debian
# package provides. CPack runs dpkg-shlibdeps with --ignore-missing-info, so such a library would silently be
# missing from Depends and the programs would not start where it is absent. The usual case is the CUDA toolkit
# from NVIDIA's installer in /usr/local/cuda: build the package without it (packaging/bootstrap.sh deb does).
find_program(KX_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(NOT KX_DPKG_SHLIBDEPS)
  return()
endif()

file(GLOB_RECURSE staged LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/*")
set(programs)
foreach(file IN LISTS staged)
  if(NOT IS_SYMLINK "${file}")
    file(READ "${file}" magic LIMIT 4 HEX)
    if(magic STREQUAL "7f454c46")
      list(APPEND programs "${file}")
    endif()
  endif()
endforeach()
if(NOT programs)
  return()
endif()

# dpkg-shlibdeps wants a debian/control; CPack's own run uses another folder.
set(work "${CPACK_TOPLEVEL_DIRECTORY}/kx-checkshlibs")
file(REMOVE_RECURSE "${work}")
file(WRITE "${work}/debian/control" "Source: kernel-explorer\n\nPackage: kernel-explorer\nArchitecture: any\n")
execute_process(COMMAND ${KX_DPKG_SHLIBDEPS} -O ${programs}
                WORKING_DIRECTORY "${work}"
                RESULT_VARIABLE result
                OUTPUT_QUIET
                ERROR_VARIABLE errors)
file(REMOVE_RECURSE "${work}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR
          "kernel-explorer: these programs need libraries that no Debian package provides, so the package could not "
          "declare them:\n${errors}"
          "Build the package from a build without them: packaging/bootstrap.sh deb configures one without the CUDA "
          "toolkit.")
endif()
