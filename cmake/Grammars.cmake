# Fetches the pinned tree-sitter grammars (grammars/package-lock.json) from the npm
# registry into the build tree and compiles each into a static library
# ts_grammar_<name>. Nothing generated is ever written to the source tree.
set(ERRDEX_GRAMMARS_DIR "" CACHE PATH
    "A node_modules directory that already holds the grammars (skips npm)")

set(_grammar_src "${CMAKE_CURRENT_SOURCE_DIR}/grammars")
set(_grammar_build "${CMAKE_BINARY_DIR}/grammars")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_grammar_src}/package.json" "${_grammar_src}/package-lock.json")

if(ERRDEX_GRAMMARS_DIR)
  set(_node_modules "${ERRDEX_GRAMMARS_DIR}")
else()
  set(_node_modules "${_grammar_build}/node_modules")
  file(SHA256 "${_grammar_src}/package-lock.json" _lock_hash)
  set(_stamp "${_grammar_build}/.fetched-${_lock_hash}")
  if(NOT EXISTS "${_stamp}")
    find_program(NPM_EXECUTABLE npm)
    if(NOT NPM_EXECUTABLE)
      message(FATAL_ERROR "npm not found (needed to fetch the tree-sitter grammars): "
                          "apt-get install npm")
    endif()
    file(REMOVE_RECURSE "${_grammar_build}")
    file(MAKE_DIRECTORY "${_grammar_build}")
    file(COPY "${_grammar_src}/package.json" "${_grammar_src}/package-lock.json"
              "${_grammar_src}/.npmrc" DESTINATION "${_grammar_build}")
    message(STATUS "Fetching tree-sitter grammars with npm ci")
    execute_process(
      COMMAND "${NPM_EXECUTABLE}" ci --ignore-scripts --no-audit --no-fund
      WORKING_DIRECTORY "${_grammar_build}"
      RESULT_VARIABLE _npm_result OUTPUT_QUIET ERROR_VARIABLE _npm_error)
    if(NOT _npm_result EQUAL 0)
      message(FATAL_ERROR "npm ci of the grammars failed:\n${_npm_error}")
    endif()
    file(TOUCH "${_stamp}")
  endif()
endif()

# errdex_grammar(<name> <package>): a static library with tree_sitter_<name>().
function(errdex_grammar name package)
  set(dir "${_node_modules}/${package}/src")
  if(NOT EXISTS "${dir}/parser.c")
    message(FATAL_ERROR "${package}: ${dir}/parser.c is missing")
  endif()
  file(STRINGS "${dir}/parser.c" abi REGEX "^#define LANGUAGE_VERSION ")
  string(REGEX REPLACE "[^0-9]" "" abi "${abi}")
  if(abi GREATER 14 OR abi LESS 13)
    message(FATAL_ERROR "${package} has ABI ${abi}; libtree-sitter 0.20 reads 13-14 "
                        "(pin a 0.23.x grammar in grammars/package.json)")
  endif()
  set(sources "${dir}/parser.c")
  if(EXISTS "${dir}/scanner.c")
    list(APPEND sources "${dir}/scanner.c")
  endif()
  add_library(ts_grammar_${name} STATIC ${sources})
  target_include_directories(ts_grammar_${name} SYSTEM PRIVATE "${dir}")
  set_target_properties(ts_grammar_${name} PROPERTIES C_STANDARD 11
                        POSITION_INDEPENDENT_CODE ON C_CLANG_TIDY "")
  target_compile_options(ts_grammar_${name} PRIVATE -w -O2)
endfunction()

errdex_grammar(python tree-sitter-python)
errdex_grammar(c tree-sitter-c)
errdex_grammar(cpp tree-sitter-cpp)
errdex_grammar(rust tree-sitter-rust)
