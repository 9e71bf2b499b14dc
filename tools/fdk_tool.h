/* kray fdk: what the tool (fdk.c) and its benchmark (bench_fdk.c, `kray bench fdk`) share. */
#ifndef KRAY_TOOLS_FDK_TOOL_H
#define KRAY_TOOLS_FDK_TOOL_H

#include "cli.h"
#include "kray/fdk.h"

/* "512M", "2G", "1.5g", "65536" -> bytes; 0 on success. */
int kc_parse_bytes(const char *s, int64_t *out);

#endif
