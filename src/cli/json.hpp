// attncheck CLI: the JSON string and number spellings of report_json.cpp, for other reports.
#pragma once

#include <string>
#include <string_view>

namespace attncheck::cli {
std::string json_quoted(std::string_view s);
std::string json_number(double v);  // "inf" (a string) when not finite
}  // namespace attncheck::cli
