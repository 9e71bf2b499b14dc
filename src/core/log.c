/* Logging to stderr, filtered by the context's level. */
#include "ctx_state.h"

#include <stdarg.h>
#include <stdio.h>

void kr_log(const kr_ctx *ctx, kr_log_level level, const char *fmt, ...)
{
    if (level == KR_LOG_QUIET || level > kri_ctx_log_level(ctx)) return;
    static const char *const tag[] = {"", "error", "warning", "info", "debug"};
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kray: %s: %s\n", tag[level], line);
    fflush(stderr); /* lines arrive as they happen, also when stderr is a pipe or a file */
}
