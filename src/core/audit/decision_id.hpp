// The layout of decision ids (docs: src/pg/audit/README.md): unique across backends, server
// starts, and a primary and its standbys; increasing within a backend.
//
//   id = life_first + ((counter - life_first) << kNodeBits) + node
//
// `life_first` is where the shared counter starts at each start of shared memory: the
// microseconds since 2020-01-01 shifted left by kLifeShift. Each id taken moves the id by
// 2^kNodeBits, so a later start begins above every id an earlier one took as long as it took
// fewer than 2^(kLifeShift - kNodeBits) per microsecond it ran. Room until about 2090.
#pragma once
#include "core/core_guard.hpp"

#include <cstdint>
#include <string_view>

namespace clarify {

inline constexpr int kLifeShift = 12;
inline constexpr int kNodeBits = 8;
inline constexpr std::uint64_t kNodeMask = (std::uint64_t{1} << kNodeBits) - 1;
// A backend takes ids from the shared counter in blocks of this many.
inline constexpr std::uint64_t kIdBlock = 64;
inline constexpr std::int64_t kIdEpochMicros = 1577836800LL * 1000000;  // 2020-01-01

// The first id of a start of shared memory made `unix_micros` after 1970 (never 0).
std::uint64_t life_first_id(std::int64_t unix_micros) noexcept;

// The id of the shared counter's value `counter` (at least `life_first`) at node `node`.
std::uint64_t decision_id(std::uint64_t life_first, std::uint64_t counter,
                          std::uint32_t node) noexcept;

// The node an id carries.
std::uint32_t id_node(std::uint64_t id) noexcept;

// The node of an origin (a server's cluster_name, or identifier@host:port): a hash of its text,
// stable across servers and versions, since a primary checks it against a standby's ids.
std::uint32_t origin_node(std::string_view origin) noexcept;

}  // namespace clarify
