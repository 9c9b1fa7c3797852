# Writes a C++ header holding a file's bytes: cmake -DIN=file -DOUT=header -DNAME=kName -P embed_file.cmake
# (the web inspector page is compiled into the server this way).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
set(content "// Generated from ${IN} by src/server/embed_file.cmake; do not edit.\n#pragma once\n#include <cstddef>\n\ninline constexpr unsigned char ${NAME}[] = {\n${bytes}0x00};\ninline constexpr size_t ${NAME}Size = ${size};\n")
# Rewrite only on change so dependents are not rebuilt needlessly.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${content}")
