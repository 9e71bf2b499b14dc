/* kray: multi-call command-line tool (placeholder main until the tool table lands). */
#include "kray/kray.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("kray %s (%s)\n", kr_version(), kr_build_features());
        return 0;
    }
    fprintf(stderr, "kray: usage: kray <tool> [options]\n");
    return 2;
}
