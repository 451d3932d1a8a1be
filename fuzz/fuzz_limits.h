// What a fuzz input may spend parsing. `dev fuzz` reports an input that runs
// over 10 s as a hang; the front ends skip a file whose parses run over their
// allowance, so the allowance here is well under that, and an input that
// parses slowly is seen taking the skip path instead (under ASan, and on a
// loaded machine, the walk after the parse takes several times longer too).
#pragma once

#include <cstdint>

namespace errdex::fuzz {

inline constexpr uint64_t kParseMicros = 2'000'000;

}  // namespace errdex::fuzz
