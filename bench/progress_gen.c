// SPDX-License-Identifier: Apache-2.0
// A plugin for the progress benchmark: N PROGRESS= lines, block-buffered stdout.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    static char buffer[1 << 16];
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    for (long i = 1; i <= n; i++) printf("PROGRESS=%ld/%ld\n", i, n);
    return 0;
}
