// Stable error ids: the same library, exception type and message template give
// the same id in every snapshot and every catalog, so /errors/<id> URLs last.
#pragma once

#include <string>
#include <string_view>

namespace errdex {

// 16 lowercase hex digits of XXH3-64 over `library \0 exception \0 template`
// (the template's display form).
std::string ErrorId(std::string_view library, std::string_view exception,
                    std::string_view display_template);

// True for a string of 16 lowercase hex digits.
bool IsErrorId(std::string_view text);

}  // namespace errdex
