# SPDX-License-Identifier: Apache-2.0
# cmake -DFILES=a.c,a.h -DFROM=onnx__ -DTO=em_onnx__ -P prefix_symbols.cmake
# Renames the lowercase identifiers protoc-c generates (functions and descriptors, e.g.
# onnx__model_proto__unpack) so that every global symbol of libember starts with em_.
string(REPLACE "," ";" FILES "${FILES}")
foreach(f ${FILES})
  file(READ ${f} text)
  string(REGEX REPLACE "([^A-Za-z0-9_])${FROM}" "\\1${TO}" text "${text}")
  file(WRITE ${f} "${text}")
endforeach()
