// judgegraph's completion record for C++ test programs (see README.md).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

int jg_test_main() __attribute__((weak));
int jg_test_main(int, char **) __attribute__((weak));

static const unsigned char jg_masked[] = {__JG_MASKED__};
static const unsigned char jg_mask[] = {__JG_MASK__};

// The tests' `assert`: a failure traps (no function the candidate's code can define is called).
extern "C" void jg_assert_failed(const char *expression, const char *file, int line) {
    std::fprintf(stderr, "Assertion failed: %s (%s:%d)\n", expression, file, line);
    std::fflush(stderr);
    __builtin_trap();
}

int main(int argc, char **argv) {
    int (*plain)() = jg_test_main;
    int (*with_args)(int, char **) = jg_test_main;
    int status = plain != nullptr ? plain() : with_args != nullptr ? with_args(argc, argv) : 1;
    if (status != 0) return status;
    const char *fd = std::getenv("JG_RECORD_FD");
    if (fd == nullptr) return 0;
    unsigned char out[sizeof jg_mask];
    for (size_t i = 0; i < sizeof jg_mask; i++) out[i] = jg_masked[i] ^ jg_mask[i];
    if (write(std::atoi(fd), out, sizeof out) != (ssize_t)sizeof out) return 1;
    return 0;
}
