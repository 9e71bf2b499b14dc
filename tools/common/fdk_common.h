/* kray fdk: what the tool (fdk.c), its benchmark (bench_fdk.c, `kray bench fdk`) and the other
 * tools that plan FDK's kernels (backproject.c, sirt.c) share. */
#ifndef KRAY_TOOLS_FDK_TOOL_H
#define KRAY_TOOLS_FDK_TOOL_H

#include "cli.h"
#include "kray/fdk.h"

/* The --gpu-mem option of the tools that plan FDK's kernels (fdk, bench fdk, backproject,
 * sirt): a size string at `var` ("0" by default), `help` saying what it budgets. */
#define KC_GPU_MEM_OPT(var, help)                                                              \
    {"gpu-mem", 0, KC_STRING, &(var), "0", "BYTES", help, NULL, 0, 0, NULL}
/* "512M", "2G", "1.5g", "65536", "0" -> *out bytes: 0, or (after one sentence) the usage exit
 * code of `tool`. */
int kc_gpu_mem(const char *tool, const char *s, int64_t *out);

#endif
