// Reading a KernelConfig's object form ({"family", "precision", the tile, "params": {the
// family's fields}}, members in any order) straight from JSON text: a schema-4 record's winner.
// The family decides what "params" must hold, so its members are read as they come and checked
// once the family is known, with the rules every form of a stored config meets
// (config_fields.hpp) and the messages the nlohmann reader of older files gives
// ("params.warps_m: expected integer, got 2.5"), each with its byte.
//
//   JsonCursor in(text);
//   KernelConfig c = read_config_object(in);   // FieldError
#pragma once

#include "codegen/kernel_config.hpp"
#include "database/json_cursor.hpp"

namespace jitgemm {

KernelConfig read_config_object(JsonCursor& in);

}  // namespace jitgemm
