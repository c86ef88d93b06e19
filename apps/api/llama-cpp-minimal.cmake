# Included by llama.cpp's project() when llama-cpp-python builds it (Makefile LOCAL_CMAKE_ARGS,
# docs/local-model.md). llama-cpp-python forces llama.cpp's `common` library on (command-line
# parsing, chat parsers, an HTTP client), but its Python code loads only libllama and ggml:
# turning it off here, after that forcing, skips about a third of the compile.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)
