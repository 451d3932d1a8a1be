# Warning, sanitizer and clang-tidy settings for errdex's own targets only;
# third-party code (the generated grammars) is compiled without them.
set(ERRDEX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(ERRDEX_WERROR)
  list(APPEND ERRDEX_WARNINGS -Werror)
endif()

if(ERRDEX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC's flow analysis reports uninitialised reads that are not there once
    # ASan has instrumented the code (Boost.Beast's parser, inlined into
    # web/http.cc); the ordinary build keeps the warning.
    list(APPEND ERRDEX_WARNINGS -Wno-maybe-uninitialized)
  endif()
endif()

if(ERRDEX_CLANG_TIDY)
  find_program(CLANG_TIDY_EXE NAMES clang-tidy-14 clang-tidy REQUIRED)
  set(ERRDEX_CLANG_TIDY_COMMAND "${CLANG_TIDY_EXE}")
endif()

# errdex_target(<target>): the settings every errdex library and program gets.
function(errdex_target target)
  target_compile_options(${target} PRIVATE ${ERRDEX_WARNINGS})
  if(ERRDEX_CLANG_TIDY)
    set_target_properties(${target} PROPERTIES CXX_CLANG_TIDY "${ERRDEX_CLANG_TIDY_COMMAND}")
  endif()
endfunction()
