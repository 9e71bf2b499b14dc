/* kray fdk: the pieces shared by the tool (fdk.c), its benchmark (bench_fdk.c) and the demo. */
#ifndef KRAY_TOOLS_FDK_TOOL_H
#define KRAY_TOOLS_FDK_TOOL_H

#include "cli.h"
#include "kray/fdk.h"

/* "512M", "2G", "1.5g", "65536" -> bytes; 0 on success. */
int kc_parse_bytes(const char *s, int64_t *out);

typedef struct kc_fdk_bench_args {
    int size;    /* volume n^3; 0 = 512 and 1024 on CUDA, 128 on the CPU */
    int views;   /* 0 = 496 on CUDA, 120 on the CPU */
    int64_t nu, nv; /* detector; 0 = 1248 x 960 on CUDA, 312 x 240 on the CPU */
    int reps;
    int all_kernels; /* CUDA: time every backprojection kernel */
} kc_fdk_bench_args;

/* `kray fdk --bench`: JSON lines on stdout; returns the tool's exit code. */
int kc_fdk_bench(const kc_common *c, const kr_fdk_opts *o, const kc_fdk_bench_args *b);

#endif
