# Runs kx and checks its exit code and output; a CTest helper (cmake -P).
#   KX             the kx executable
#   ARGS           its arguments, separated by '|'
#   EXPECT_EXIT    the exit code it must return
#   EXPECT_OUTPUT  optional: regular expressions (separated by '|||') that its output must all match
string(REPLACE "|" ";" arguments "${ARGS}")
execute_process(COMMAND "${KX}" ${arguments} RESULT_VARIABLE code OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT "${code}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "kx exited with ${code}, expected ${EXPECT_EXIT}")
endif()
if(DEFINED EXPECT_OUTPUT)
  string(REPLACE "|||" ";" patterns "${EXPECT_OUTPUT}")
  foreach(pattern IN LISTS patterns)
    if(NOT "${output}${errors}" MATCHES "${pattern}")
      message(FATAL_ERROR "the output does not match: ${pattern}")
    endif()
  endforeach()
endif()
