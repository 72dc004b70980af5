#include "core/audit/decision_id.hpp"

namespace clarify {

std::uint64_t life_first_id(std::int64_t unix_micros) noexcept {
    std::int64_t since = unix_micros - kIdEpochMicros;
    return static_cast<std::uint64_t>(since < 1 ? 1 : since) << kLifeShift;
}

std::uint64_t decision_id(std::uint64_t life_first, std::uint64_t counter,
                          std::uint32_t node) noexcept {
    return life_first + ((counter - life_first) << kNodeBits) + (node & kNodeMask);
}

std::uint32_t id_node(std::uint64_t id) noexcept {
    return static_cast<std::uint32_t>(id & kNodeMask);
}

std::uint32_t origin_node(std::string_view origin) noexcept {
    // FNV-1a, folded to the node's bits.
    std::uint32_t h = 2166136261u;
    for (unsigned char c : origin) h = (h ^ c) * 16777619u;
    return (h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & static_cast<std::uint32_t>(kNodeMask);
}

}  // namespace clarify
