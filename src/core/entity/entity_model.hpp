// One registered entity (clarify.entities), as the catalog snapshot holds it.
#pragma once
#include "core/core_guard.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace clarify {

// One row of clarify.entities, by attribute numbers.
struct Entity {
    std::uint32_t relation = 0;
    std::string relation_name;  // "schema.table", for the audit binding
    std::int16_t name_attnum = 0, key_attnum = 0;
    std::string name_column, key_column, label;
    std::vector<std::int16_t> detail_attnums;  // in detail_columns order
    std::vector<std::string> detail_columns;
    bool case_insensitive = true;
    int max_options = 10;
};

}  // namespace clarify
