#ifndef C_FUZZER_DRIVER_H
#define C_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program whose main is its own: SwiftPM links an executable's main
/// under another name and points `main` at it, so libFuzzer's own main is never linked. Weak:
/// in a build without libFuzzer it is null, and nothing calls it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size))
    __attribute__((weak));

#endif
