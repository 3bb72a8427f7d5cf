# Turns a text file into a header holding it as one raw string constant, so core carries the text compiled in and
# it cannot go missing at run time.
#   cmake -DINPUT=FILE -DOUTPUT=HEADER -DNAME=CONSTANT -P embedtext.cmake
file(READ "${INPUT}" text)
set(delimiter "kxembed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the end of the raw string, )${delimiter}\"")
endif()
get_filename_component(source "${INPUT}" NAME)
string(CONCAT header "// Generated from ${source} by embedtext.cmake: edit that file instead.\n#pragma once\n\n#include <string_view>\n\n"
                     "namespace kx {\ninline constexpr std::string_view ${NAME} = R\"${delimiter}(${text})${delimiter}\";\n}\n")
file(WRITE "${OUTPUT}" "${header}")
