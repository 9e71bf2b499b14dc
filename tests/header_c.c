/* Public headers compile as pedantic C11. */
#include "kray/kray.h"
int kray_header_c_check(void) { return KR_OK; }
