#include "core/native_errors.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace errdex {
namespace {

// std:: and the binding libraries' own exception types, by short name. The
// std:: table is pybind11's and nanobind's translator (they agree).
constexpr std::pair<std::string_view, std::string_view> kBindingTypes[] = {
    {"value_error", "ValueError"},
    {"type_error", "TypeError"},
    {"index_error", "IndexError"},
    {"key_error", "KeyError"},
    {"attribute_error", "AttributeError"},
    {"buffer_error", "BufferError"},
    {"import_error", "ImportError"},
    {"stop_iteration", "StopIteration"},
    {"next_overflow", "OverflowError"},
    {"cast_error", "RuntimeError"},
    {"reference_cast_error", "RuntimeError"},
};
constexpr std::pair<std::string_view, std::string_view> kStdTypes[] = {
    {"invalid_argument", "ValueError"},
    {"domain_error", "ValueError"},
    {"length_error", "ValueError"},
    {"range_error", "ValueError"},
    {"out_of_range", "IndexError"},
    {"overflow_error", "OverflowError"},
    {"bad_alloc", "MemoryError"},
    {"runtime_error", "RuntimeError"},
    {"logic_error", "RuntimeError"},
    {"underflow_error", "RuntimeError"},
    {"system_error", "RuntimeError"},
    {"exception", "RuntimeError"},
    {"bad_cast", "RuntimeError"},
    {"bad_variant_access", "RuntimeError"},
    {"bad_optional_access", "RuntimeError"},
};

}  // namespace

bool IsStatusCode(std::string_view name) {
  return std::find(kStatusCodes.begin(), kStatusCodes.end(), name) != kStatusCodes.end();
}

std::string StatusCodeFromName(std::string_view name) {
  if (name.size() > 1 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1]))) {
    name.remove_prefix(1);
  }
  std::string code;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!std::isalpha(static_cast<unsigned char>(c))) return "";
    if (i > 0 && std::isupper(static_cast<unsigned char>(c))) code.push_back('_');
    code.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return IsStatusCode(code) ? code : "";
}

std::string_view PythonTypeOfCpp(std::string_view written) {
  size_t lt = written.find('<');
  if (lt != std::string_view::npos) written = written.substr(0, lt);
  size_t colon = written.rfind("::");
  std::string_view scope = colon == std::string_view::npos ? "" : written.substr(0, colon);
  std::string_view name = colon == std::string_view::npos ? written : written.substr(colon + 2);
  while (!scope.empty() && scope.front() == ':') scope.remove_prefix(1);
  bool std_scope = scope == "std";
  bool binding_scope = scope == "nb" || scope == "py" || scope == "nanobind" || scope == "pybind11";
  for (const auto& [cpp, python] : kBindingTypes) {
    if (name == cpp && (binding_scope || scope.empty())) return python;
  }
  for (const auto& [cpp, python] : kStdTypes) {
    if (name == cpp && (std_scope || scope.empty())) return python;
  }
  return {};
}

}  // namespace errdex
