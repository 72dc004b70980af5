#include "core/render/detail_template.hpp"

#include <nlohmann/json.hpp>

#include <string_view>

namespace clarify {

std::optional<std::string> splice_decision_id(const std::string &without_id,
                                              const std::string &decision_id) {
    // decision_json's first key (its keys are sorted): an empty id renders as null.
    constexpr std::string_view kPrefix = "{\"decision_id\":null";
    if (decision_id.empty() || without_id.compare(0, kPrefix.size(), kPrefix) != 0)
        return std::nullopt;
    std::string out = "{\"decision_id\":";
    out += nlohmann::json(decision_id).dump();
    out.append(without_id, kPrefix.size(), std::string::npos);
    return out;
}

}  // namespace clarify
